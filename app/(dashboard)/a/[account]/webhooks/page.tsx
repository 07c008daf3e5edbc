import type { Metadata } from "next";
import { describeRetrySchedule } from "@/components/format";
import { Alert } from "@/components/ui/alert";
import { describeApiError } from "@/lib/dashboard/public-api";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { webhookSettings } from "@/lib/dashboard/webhooks";
import type { WebhookRecord } from "@/lib/contract/webhooks";
import { CreateWebhookForm } from "./_components/create-webhook-form";
import { SigningKeyCard } from "./_components/signing-key-card";
import { WebhookList } from "./_components/webhook-list";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

export default async function WebhooksPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const access = await requireAccess(account, "webhooks", { returnTo: `/a/${account}/webhooks` });
  let webhooks: WebhookRecord[] | undefined;
  let error: string | undefined;
  try {
    webhooks = (await (await apiFor(access, "webhooks")).listWebhooks()).Webhooks;
  } catch (err) {
    error = describeApiError(err);
  }
  const { allowPrivate, retryScheduleMs } = webhookSettings();
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Webhooks</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Each registration receives a signed HTTP POST for every matching event. Failed deliveries are {describeRetrySchedule(retryScheduleMs)}; the try counter shows the attempts of the notification being delivered.
        </p>
      </div>
      {webhooks?.some((w) => w.Status === "Disabled") && (
        <div data-testid="disabled-webhooks-banner">
          <Alert tone="warning" title="Some webhooks are disabled">
            {webhooks.filter((w) => w.Status === "Disabled").map((w) => `#${w.WebhookID}`).join(", ")} stopped receiving notifications: the endpoint answered 410 Gone or kept
            failing. Their notifications are kept; re-enable each one below once its endpoint works again.
          </Alert>
        </div>
      )}
      <CreateWebhookForm allowPrivate={allowPrivate} />
      {error && <Alert tone="error" title="The webhooks could not be loaded">{error}</Alert>}
      {webhooks && <WebhookList webhooks={webhooks} />}
      <SigningKeyCard />
    </div>
  );
}
