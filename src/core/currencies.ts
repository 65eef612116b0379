import { InvalidRequest } from './http/errors.ts';

/**
 * The currencies money may be in: the active ISO 4217 codes (List One as amended up to 2026), each with
 * its minor unit, the power of ten an amount in minor units is divided by (EUR 2: 2500 is 25.00 EUR;
 * JPY 0: 2500 is 2500 JPY; KWD 3: 2500 is 2.500 KWD). Left out on purpose: withdrawn codes (BGN since the
 * euro in 2026, HRK, ANG after XCG, SLL after SLE, ZWL after ZWG, CUC, ...), and the codes that name no
 * currency one pays in: funds (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals (XAU, XAG,
 * XPD, XPT), the SDR and its units (XDR, XSU, XUA, XBA-XBD), testing and "no currency" (XTS, XXX).
 * The one list: every module that takes a currency checks it here.
 */
const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF',
    2: `AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF
        CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL
        HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT
        MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB
        SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH
        USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG`,
    3: 'BHD IQD JOD KWD LYD OMR TND',
  }).flatMap(([digits, codes]) => codes.split(/\s+/).map((code): [string, number] => [code, Number(digits)])),
);

/** Every accepted code, sorted. */
export const CURRENCY_CODES: readonly string[] = [...MINOR_UNITS.keys()].sort();

/** Whether `code` is an active ISO 4217 currency code (upper case, as ISO writes them). */
export function isCurrency(code: string): boolean {
  return MINOR_UNITS.has(code);
}

/** The currency's minor unit (decimal places), or undefined for a code that is not a currency here. */
export function minorUnit(code: string): number | undefined {
  return MINOR_UNITS.get(code);
}

/** Refuses a code that is not a currency here, naming the body field it came in (400 unknown_currency). */
export function assertCurrency(code: string, field = '/body/currency'): void {
  if (isCurrency(code)) return;
  throw new InvalidRequest(
    `currency ${code} is not an active ISO 4217 currency code; use one such as EUR, USD or JPY`,
    [
      {
        field,
        message: `an active ISO 4217 code, upper case (one of ${CURRENCY_CODES.length}, e.g. EUR, USD, JPY)`,
        code: 'unknown_currency',
      },
    ],
  );
}
