import { accountBase, dashboardUserOrOutage, defaultAccountOf } from "@/lib/dashboard/access";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";

export const dynamic = "force-dynamic";

/** The export URL before the account was in it: the default account's (ADR 0510). */
export const GET = sameOriginRoute(async (request: Request): Promise<Response> => {
  const { user, outage } = await dashboardUserOrOutage();
  if (outage) return Response.json({ error: outage }, { status: 503, headers: { "Retry-After": "5" } });
  if (!user) return Response.json({ error: "Sign in first" }, { status: 401 });
  const account = defaultAccountOf(user);
  if (!account) return Response.json({ error: "No such account" }, { status: 404 });
  const url = new URL(request.url);
  return new Response(null, { status: 307, headers: { Location: `${accountBase(account.accountId)}/events/export${url.search}` } });
});
