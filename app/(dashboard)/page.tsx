import { redirectHome, type SearchParams } from "@/lib/dashboard/legacy";

/** `/`: the user's default account (ADR 0510). */
export default async function Home({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return redirectHome(await searchParams);
}
