import { redirectToDefaultAccount, type SearchParams } from "@/lib/dashboard/legacy";

/** The URL without the account in it: the same page of the default account (ADR 0510). */
export default async function Legacy({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return redirectToDefaultAccount("/deliverability", await searchParams);
}
