import { redirectToDefaultAccount, type SearchParams } from "@/lib/dashboard/legacy";

/** Without an account in the URL: the same page of the default account (ADR 0510). */
export default async function Legacy({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return redirectToDefaultAccount("/templates", await searchParams);
}
