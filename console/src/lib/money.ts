/** Amounts travel as integers in minor units (cents); people read and type them in major units (euros). */

/** How many minor-unit digits a currency has (EUR 2, JPY 0), as the browser's Intl knows it. */
export function currencyDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** `2550, 'EUR'` -> `€25.50` in the user's locale; null (no price yet) -> `—`. */
export function formatMoney(amount: number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return '—';
  const digits = currencyDigits(currency);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency} (minor units)`;
  }
}

/** What a person typed (`25.5`) as minor units (`2550`), or undefined when it is not an amount. */
export function parseMoney(text: string, currency: string): number | undefined {
  const trimmed = text.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const digits = currencyDigits(currency);
  const [whole = '0', fraction = ''] = trimmed.split('.');
  if (fraction.length > digits) return undefined;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}
