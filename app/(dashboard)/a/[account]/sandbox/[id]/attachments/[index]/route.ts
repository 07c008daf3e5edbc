import { accessForRoute } from "@/lib/dashboard/access";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";
import { readSandbox } from "@/lib/dashboard/sandbox";

export const dynamic = "force-dynamic";

/** An RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name. */
function disposition(filename: string): string {
  const clean = filename.replace(/[\r\n"\\/]/g, "_") || "attachment";
  const ascii = clean.replace(/[^\x20-\x7e]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(clean)}`;
}

/**
 * GET /a/<account>/sandbox/<id>/attachments/<n>: one attachment of the account's captured message,
 * always as a download (never rendered on the dashboard's origin).
 */
export const GET = sameOriginRoute(async (_request: Request, { params }: { params: Promise<{ account: string; id: string; index: string }> }): Promise<Response> => {
  const { account, id, index } = await params;
  const access = await accessForRoute(account, "sandbox");
  if (access instanceof Response) return access;
  const message = /^\d{1,15}$/.test(id) ? await readSandbox(access, Number(id)) : undefined;
  const attachment = message && /^\d{1,4}$/.test(index) ? message.attachments[Number(index)] : undefined;
  if (!attachment) return Response.json({ error: "No such attachment" }, { status: 404 });
  const bytes = Buffer.from(attachment.contentBase64, "base64");
  return new Response(new Uint8Array(bytes), {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(bytes.length),
      "Content-Disposition": disposition(attachment.filename || `attachment-${index}`),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
});
