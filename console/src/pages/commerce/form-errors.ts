import { isSvcError } from '@svc/client';

/**
 * The validation messages of a refused save, by the field they name (`/body/brand/colors/primary` ->
 * `brand.colors.primary`), to show beside each field.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!isSvcError(error)) return {};
  const byField: Record<string, string> = {};
  for (const detail of error.details) {
    const field = detail.field.replace(/^\/body\/?/, '').replaceAll('/', '.');
    byField[field] = detail.message;
  }
  return byField;
}

/** A form's text field as the API takes it: trimmed, and left out when empty. */
export function optional(value: FormDataEntryValue | null): string | undefined {
  const text = String(value ?? '').trim();
  return text === '' ? undefined : text;
}

/** One entry a line (or separated by commas), blanks dropped. */
export function lines(value: FormDataEntryValue | null): string[] {
  return String(value ?? '')
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
