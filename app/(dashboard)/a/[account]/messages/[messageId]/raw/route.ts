import { accessForRoute } from "@/lib/dashboard/access";
import { sentRaw } from "@/lib/dashboard/messages";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";

export const dynamic = "force-dynamic";

/** GET /a/<account>/messages/<MessageID>/raw: the account's message as sent (RFC 5322, docs/adr/0518), for admin and support. */
export const GET = sameOriginRoute(async (_request: Request, { params }: { params: Promise<{ account: string; messageId: string }> }): Promise<Response> => {
  const { account, messageId } = await params;
  const access = await accessForRoute(account, "messages");
  if (access instanceof Response) return access;
  const sent = await sentRaw(access, messageId);
  if (!sent) return Response.json({ error: "No such message" }, { status: 404 });
  return new Response(new Uint8Array(sent.raw), {
    headers: {
      "Content-Type": "message/rfc822",
      "Content-Disposition": `attachment; filename="message-${messageId.toLowerCase()}.eml"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
});
