import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { describeApiError } from "@/lib/dashboard/public-api";
import type { ScheduledList } from "@/lib/contract/scheduled";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { ScheduledListView } from "./_components/scheduled-list";

export const metadata: Metadata = { title: "Scheduled" };
export const dynamic = "force-dynamic";

export default async function ScheduledPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const access = await requireAccess(account, "scheduled", { returnTo: `/a/${account}/scheduled` });
  let list: ScheduledList | undefined;
  let error: string | undefined;
  try {
    list = await (await apiFor(access, "scheduled")).listScheduledEmails();
  } catch (err) {
    error = describeApiError(err);
  }
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Scheduled</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Messages accepted with a <code>SendAt</code> that have not started yet, soonest first (GET /api/v1/email/scheduled). Cancelling one gives each
          recipient its final <code>failed</code> event, &ldquo;cancelled before sending&rdquo;.
        </p>
      </div>
      {error && <Alert tone="error" title="The scheduled messages could not be loaded">{error}</Alert>}
      {list && <ScheduledListView messages={list.Messages} />}
    </div>
  );
}
