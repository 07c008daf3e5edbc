import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { listQueuesAsOwner, requireQueuesOwner } from "@/lib/dashboard/queues";
import { QueuesPanel } from "./_components/queues-panel";

export const metadata: Metadata = { title: "Queues" };
export const dynamic = "force-dynamic";

/** Delivery queues by destination, for owners (docs/dashboard-admin.md, "Queues"). */
export default async function QueuesPage() {
  const owner = await requireQueuesOwner();
  const queues = await listQueuesAsOwner(owner);
  const automatic = queues.filter((q) => q.automatic && q.state === "suspended");
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Queues</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Mail waiting for delivery, by destination: a recipient domain, a provider (gmail, outlook, yahoo, …) or the relay. A suspended destination gets no
          connection until it is resumed; its mail waits without spending delivery attempts. The same as <code>mailroom queue</code>.
        </p>
      </div>
      {automatic.length > 0 && (
        <div data-testid="automatic-suspension-banner">
          <Alert tone="warning" title={`Suspended automatically: ${automatic.map((q) => q.key).join(", ")}`}>
            {automatic.map((q) => (
              <p key={q.key}>
                {q.key}: {q.holds.find((h) => h.source === "automatic")?.reason || "a suspension pattern in its replies"}
              </p>
            ))}
          </Alert>
        </div>
      )}
      <QueuesPanel queues={queues} />
    </div>
  );
}
