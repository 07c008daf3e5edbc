import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { canAccess } from "@/lib/auth/roles";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { composeDomains } from "@/lib/dashboard/compose";
import { instanceInfo } from "@/lib/dashboard/instance";
import { ComposeForm } from "./_components/compose-form";

export const metadata: Metadata = { title: "Compose" };
export const dynamic = "force-dynamic";

export default async function ComposePage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const access = await requireAccess(account, "compose", { returnTo: `/a/${account}/compose` });
  const { sandbox } = instanceInfo();
  let domains: { name: string; verified: boolean }[] = [];
  let error: string | undefined;
  try {
    domains = await composeDomains(access);
  } catch (err) {
    error = (err as Error).message;
  }
  const hasVerified = domains.some((d) => d.verified);
  // Compose can start from a template; without the list (an older API, an outage) it simply offers none.
  let templates: { id: number; name: string }[] = [];
  try {
    templates = (await (await apiFor(access, "compose")).listTemplates()).Templates.map((t) => ({ id: t.TemplateID, name: t.Name }));
  } catch {
    templates = [];
  }
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Compose</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Sends one message through the public API (POST /api/v1/email) with the dashboard&apos;s key, exactly as a client would.
          {sandbox && " Delivery is in sandbox mode: the message lands in the Sandbox inbox, not in real mailboxes."}
        </p>
      </div>
      {error && <Alert tone="error" title="The sender domains could not be loaded">{error}</Alert>}
      {!error && !hasVerified && (
        <Alert tone="warning" title="No verified sender domain">
          Mail can only be sent From a verified domain.{" "}
          {canAccess(access.role, "settings") ? "Add and verify one in Settings → Sender domains." : "Ask an admin to verify one."}
        </Alert>
      )}
      <ComposeForm domains={domains} canOpenMessages={canAccess(access.role, "messages")} sandbox={sandbox} templates={templates} />
    </div>
  );
}
