import { requireRoleForRoute } from "@/lib/auth/require-role";
import { readSandboxMessage } from "@/lib/inbound/sandbox-inbox";
import { getServerContext } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** GET /sandbox/<id>/raw: the captured message as received (RFC 5322), for admin and support. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const staff = await requireRoleForRoute("sandbox");
  if (staff instanceof Response) return staff;
  const { id } = await params;
  const message = /^\d{1,15}$/.test(id) ? await readSandboxMessage(getServerContext().database, Number(id)) : undefined;
  if (!message) return Response.json({ error: "No such sandbox message" }, { status: 404 });
  return new Response(message.raw, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="sandbox-${message.id}.eml"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
}
