import { requireRoleForRoute } from "@/lib/auth/require-role";
import { readSandboxMessage } from "@/lib/inbound/sandbox-inbox";
import { getServerContext } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** An RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name. */
function disposition(filename: string): string {
  const clean = filename.replace(/[\r\n"\\/]/g, "_") || "attachment";
  const ascii = clean.replace(/[^\x20-\x7e]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(clean)}`;
}

/**
 * GET /sandbox/<id>/attachments/<n>: one attachment of a captured message,
 * always as a download (never rendered on the dashboard's origin).
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string; index: string }> }): Promise<Response> {
  const staff = await requireRoleForRoute("sandbox");
  if (staff instanceof Response) return staff;
  const { id, index } = await params;
  const message = /^\d{1,15}$/.test(id) ? await readSandboxMessage(getServerContext().database, Number(id)) : undefined;
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
}
