import type { Metadata } from "next";
import { canAccess } from "@/lib/auth/roles";
import { requireAccess } from "@/lib/dashboard/access";
import { loadDeliverability } from "@/lib/dashboard/deliverability";
import { formatUtc } from "@/components/format";
import { totalRates } from "./_lib/rate-series";
import { readinessVerdict } from "./_lib/readiness";
import { DmarcSection } from "./_components/dmarc-section";
import { DomainHealthSection } from "./_components/domain-health-section";
import { RatesSection } from "./_components/rates-section";
import { ReadinessSection } from "./_components/readiness-section";

export const metadata: Metadata = { title: "Deliverability" };
export const dynamic = "force-dynamic";

export default async function DeliverabilityPage({ params: route }: { params: Promise<{ account: string }> }) {
  const { account } = await route;
  const access = await requireAccess(account, "deliverability", { returnTo: `/a/${account}/deliverability` });
  const data = await loadDeliverability(access);
  const totals = data.stats.ok ? totalRates(data.stats.value.stats) : undefined;
  const verdict = readinessVerdict({
    domains: data.domains.ok ? data.domains.value : [],
    complaints: { complained: totals?.complained ?? 0, delivered: totals?.delivered ?? 0 },
    transport: { mode: data.instance.mode, relayScheme: data.instance.relayScheme },
    // Every message Mailroom builds carries List-Unsubscribe and List-Unsubscribe-Post (lib/delivery/build-message.ts).
    oneClickUnsubscribe: true,
    publicUrl: data.instance.publicUrl,
  });
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Deliverability</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Bounces and complaints against the guardrails, domain health, DMARC sources and bulk-sender readiness of {access.account.accountName}:{" "}
          {formatUtc(data.range.start).slice(0, 10)} – {formatUtc(data.range.end).slice(0, 10)} UTC.
        </p>
      </div>
      <RatesSection stats={data.stats} reputation={data.reputation} />
      <DomainHealthSection domains={data.domains} settingsHref={canAccess(access.role, "settings") ? `${access.base}/settings#domains` : undefined} />
      <DmarcSection dmarc={data.dmarc} domainsRead={data.domains.ok} />
      <ReadinessSection verdict={verdict} />
    </div>
  );
}
