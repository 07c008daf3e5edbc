import type { Metadata } from "next";
import { Alert } from "@/components/ui/alert";
import { getApiClient } from "@/lib/api-client";
import { describeApiError } from "@/lib/api-client/describe-error";
import { requireRole } from "@/lib/auth/require-role";
import type { WebhookRecord } from "@/lib/contract/webhooks";
import { getServerContext } from "@/lib/runtime";
import { CreateWebhookForm } from "./_components/create-webhook-form";
import { SigningKeyCard } from "./_components/signing-key-card";
import { WebhookList } from "./_components/webhook-list";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

export default async function WebhooksPage() {
  await requireRole("webhooks", "/webhooks");
  let webhooks: WebhookRecord[] | undefined;
  let error: string | undefined;
  try {
    webhooks = (await (await getApiClient()).listWebhooks()).Webhooks;
  } catch (err) {
    error = describeApiError(err);
  }
  const { config } = getServerContext();
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Webhooks</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Each registration receives a signed HTTP POST for every matching event. Failed deliveries are retried (5 min up to 4 h; eight
          attempts in all); the try counter shows the attempts of the notification being delivered.
        </p>
      </div>
      <CreateWebhookForm allowPrivate={config.webhooks.allowPrivate} />
      {error && <Alert tone="error" title="The webhooks could not be loaded">{error}</Alert>}
      {webhooks && <WebhookList webhooks={webhooks} />}
      <SigningKeyCard />
    </div>
  );
}
