import { redirectToDefaultAccount } from "@/lib/dashboard/legacy";

/** The URL before the account was in it: the capture in the default account (ADR 0510). */
export default async function Legacy({ params }: { params: Promise<{ id: string }> }) {
  return redirectToDefaultAccount(`/sandbox/${encodeURIComponent((await params).id)}`);
}
