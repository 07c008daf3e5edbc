import type { Metadata } from "next";
import { SmtpSubmissionCard, smtpSubmissionProps } from "@/components/settings/smtp-submission-card";
import { Alert } from "@/components/ui/alert";
import { getDashboardAccountId } from "@/lib/api-client/dashboard-account";
import { requireRole } from "@/lib/auth/require-role";
import { listApiKeys } from "@/lib/domain/api-keys";
import { dnsRecordsFor, listSenderDomains } from "@/lib/domain/sender-domains";
import { listStaffUsers } from "@/lib/domain/staff-users";
import { listSuppressions } from "@/lib/domain/suppressions";
import { getServerContext } from "@/lib/runtime";
import { ApiKeysCard, type ApiKeyView } from "./_components/api-keys-card";
import { DomainsCard, type DomainView } from "./_components/domains-card";
import { StaffCard, type StaffView } from "./_components/staff-card";
import { SuppressionsCard, type SuppressionView } from "./_components/suppressions-card";

export const metadata: Metadata = { title: "Settings" };
export const dynamic = "force-dynamic";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export default async function SettingsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const q = typeof params.q === "string" ? params.q.slice(0, 254) : "";
  const staff = await requireRole("settings", "/settings");
  const ctx = getServerContext();
  const db = ctx.database.db;
  let accountId: string;
  try {
    accountId = await getDashboardAccountId();
  } catch (err) {
    return <Alert tone="error" title="Settings are not available">{(err as Error).message}</Alert>;
  }
  const [keys, domains, suppressions, users] = await Promise.all([
    listApiKeys(db, accountId),
    listSenderDomains(db, accountId),
    listSuppressions(db, accountId, { search: q || undefined, limit: 200 }),
    listStaffUsers(db),
  ]);
  const keyViews: ApiKeyView[] = keys.map((k) => ({
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  }));
  const domainViews: DomainView[] = domains.map((d) => ({
    id: d.id,
    name: d.name,
    status: d.status,
    verifiedAt: iso(d.verifiedAt),
    records: dnsRecordsFor(d, { bounceDomain: ctx.config.delivery.bounceDomain }),
  }));
  const suppressionViews: SuppressionView[] = suppressions.map((s) => ({
    email: s.email,
    reason: s.reason,
    detail: s.detail,
    createdAt: s.createdAt.toISOString(),
    messageId: s.messageId,
  }));
  const staffViews: StaffView[] = users.map((u) => ({ email: u.email, name: u.name, role: u.role, lastLoginAt: iso(u.lastLoginAt) }));
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          API keys, sender domains and the suppression list of this account, and the staff who may sign in.
        </p>
      </div>
      <nav aria-label="Settings sections" className="flex flex-wrap gap-2 text-sm">
        {[
          ["#api-keys", "API keys"],
          ["#domains", "Sender domains"],
          ["#suppressions", "Suppression list"],
          ["#staff", "Staff users"],
        ].map(([href, text]) => (
          <a key={href} href={href} className="rounded-md px-3 py-1.5 font-medium text-brand-700 hover:bg-brand-50 dark:text-brand-100 dark:hover:bg-slate-800">
            {text}
          </a>
        ))}
      </nav>
      <ApiKeysCard keys={keyViews} />
      <DomainsCard domains={domainViews} />
      <SmtpSubmissionCard {...smtpSubmissionProps(ctx)} />
      <SuppressionsCard suppressions={suppressionViews} query={q} />
      <StaffCard users={staffViews} currentEmail={staff.email} />
    </div>
  );
}
