import type { Metadata } from "next";
import { SmtpSubmissionCard } from "@/components/settings/smtp-submission-card";
import { requireAccess } from "@/lib/dashboard/access";
import { smtpSubmissionView } from "@/lib/dashboard/instance";
import { loadSettings } from "@/lib/dashboard/settings";
import { ApiKeysCard, type ApiKeyView } from "./_components/api-keys-card";
import { DomainsCard, type DomainView } from "./_components/domains-card";
import { StaffCard, type StaffView } from "./_components/staff-card";
import { SuppressionsCard, type SuppressionView } from "./_components/suppressions-card";

export const metadata: Metadata = { title: "Settings" };
export const dynamic = "force-dynamic";

export default async function SettingsPage({
  params: route,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await route;
  const params = await searchParams;
  const q = typeof params.q === "string" ? params.q.slice(0, 254) : "";
  const access = await requireAccess(account, "settings", { returnTo: `/a/${account}/settings` });
  const data = await loadSettings(access, { q });
  const keyViews: ApiKeyView[] = data.keys;
  const domainViews: DomainView[] = data.domains;
  const suppressionViews: SuppressionView[] = data.suppressions;
  const staffViews: StaffView[] = data.members;
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          API keys, sender domains and the suppression list of this account, and the staff who may open it.
        </p>
      </div>
      <nav aria-label="Settings sections" className="flex flex-wrap gap-2 text-sm">
        {[
          ["#api-keys", "API keys"],
          ["#domains", "Sender domains"],
          ["#suppressions", "Suppression list"],
          ["#staff", "Members"],
          ["#smtp", "SMTP submission"],
        ].map(([href, text]) => (
          <a key={href} href={href} className="rounded-md px-3 py-1.5 font-medium text-brand-700 hover:bg-brand-50 dark:text-brand-100 dark:hover:bg-slate-800">
            {text}
          </a>
        ))}
      </nav>
      <ApiKeysCard keys={keyViews} />
      <DomainsCard domains={domainViews} />
      <SuppressionsCard suppressions={suppressionViews} query={q} />
      <StaffCard users={staffViews} invitations={data.invitations} currentEmail={access.user.email} isOwner={access.user.isOwner} />
      <SmtpSubmissionCard {...smtpSubmissionView()} />
    </div>
  );
}
