import { accessForRoute } from "@/lib/dashboard/access";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";
import { readSandbox } from "@/lib/dashboard/sandbox";

export const dynamic = "force-dynamic";

/** GET /a/<account>/sandbox/<id>/raw: the account's captured message as received (RFC 5322), for admin and support. */
export const GET = sameOriginRoute(async (_request: Request, { params }: { params: Promise<{ account: string; id: string }> }): Promise<Response> => {
  const { account, id } = await params;
  const access = await accessForRoute(account, "sandbox");
  if (access instanceof Response) return access;
  const message = /^\d{1,15}$/.test(id) ? await readSandbox(access, Number(id)) : undefined;
  if (!message) return Response.json({ error: "No such sandbox message" }, { status: 404 });
  return new Response(message.raw, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="sandbox-${message.id}.eml"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
});
