/**
 * The mailbox provider of a recipient domain, by a small table of the large ones
 * (docs/adr/0517): until delivery's destinations say which MX hosts a domain uses,
 * its name is all there is. Pure.
 */

const EXACT: Record<string, string> = {
  "gmail.com": "Gmail",
  "googlemail.com": "Gmail",
  "outlook.com": "Outlook",
  "hotmail.com": "Outlook",
  "live.com": "Outlook",
  "msn.com": "Outlook",
  "icloud.com": "iCloud",
  "me.com": "iCloud",
  "mac.com": "iCloud",
  "aol.com": "AOL",
  "gmx.com": "GMX",
  "gmx.net": "GMX",
  "gmx.de": "GMX",
  "web.de": "WEB.DE",
  "mail.ru": "Mail.ru",
  "yandex.ru": "Yandex",
  "yandex.com": "Yandex",
  "proton.me": "Proton",
  "protonmail.com": "Proton",
  "zoho.com": "Zoho",
};

/** Families with a domain per country: `hotmail.co.uk`, `yahoo.fr`, `ymail.com`. */
const FAMILIES: Array<[RegExp, string]> = [
  [/^(yahoo|ymail|rocketmail)\.(com|net|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$/, "Yahoo"],
  [/^(hotmail|outlook|live|windowslive)\.(com|net|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$/, "Outlook"],
];

/** Every domain not in the table. */
export const OTHER_PROVIDER = "Other";

export function providerOf(domain: string): string {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  return EXACT[d] ?? FAMILIES.find(([re]) => re.test(d))?.[1] ?? OTHER_PROVIDER;
}
