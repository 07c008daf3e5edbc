"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input, Select } from "@/components/ui/input";
import { NOTIFICATION_EVENT_OF, REGISTRATION_EVENTS, webhookUrlSchema } from "@/lib/contract/webhooks";
import { useAccountId } from "@/components/shell/use-account";
import { createWebhookAction } from "../actions";

const EVENT_HELP: Record<(typeof REGISTRATION_EVENTS)[number], string> = {
  delivery: "the receiving server accepted the message",
  bounce: "delivery failed or was rejected",
  open: "the recipient opened an HTML message",
  click: "the recipient followed a tracked link",
  unsubscribe: "the recipient unsubscribed",
  complaint: "the recipient reported the message as spam",
};

export function CreateWebhookForm({ allowPrivate }: { allowPrivate: boolean }) {
  const accountId = useAccountId();
  const router = useRouter();
  const [url, setUrl] = useState("");
  const [event, setEvent] = useState<string>("delivery");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<number | null>(null);
  const [pending, setPending] = useState(false);

  const trimmed = url.trim();
  const isValid = trimmed === "" || webhookUrlSchema.safeParse(trimmed).success;
  const isPlainHttp = /^http:\/\//i.test(trimmed);
  const urlError = fieldErrors.WebhookURL ?? (!isValid ? "Enter an absolute http:// or https:// URL" : undefined);
  const urlHint = isPlainHttp
    ? "Plain http: the payload and its signature travel unencrypted. Use https:// unless the receiver is on a private network."
    : `An https:// address is advised.${allowPrivate ? "" : " Loopback and private addresses are refused on this server."}`;

  return (
    <Card>
      <CardHeader title="Register a webhook" description="Webhooks cannot be edited: to change one, delete it and register it again." />
      <CardBody>
        <form
          noValidate
          className="grid grid-cols-1 items-start gap-3 md:grid-cols-[14rem_1fr_auto]"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            setCreated(null);
            setFieldErrors({});
            if (!trimmed || !isValid) {
              setFieldErrors({ WebhookURL: "Enter an absolute http:// or https:// URL" });
              return;
            }
            setPending(true);
            try {
              const result = await createWebhookAction(accountId, { Event: event, WebhookURL: trimmed });
              if (!result.ok) {
                setError(result.error);
                setFieldErrors(result.fieldErrors ?? {});
                return;
              }
              setCreated(result.data.id);
              setUrl("");
              router.refresh();
            } catch {
              setError("The request failed. Check your connection and sign-in, then try again.");
            } finally {
              setPending(false);
            }
          }}
        >
          <Field id="webhook-event" label="Event" error={fieldErrors.Event} hint={EVENT_HELP[event as keyof typeof EVENT_HELP]}>
            <Select id="webhook-event" value={event} onChange={(e) => setEvent(e.target.value)} aria-describedby="webhook-event-hint">
              {REGISTRATION_EVENTS.map((ev) => (
                <option key={ev} value={ev}>
                  {ev} ({NOTIFICATION_EVENT_OF[ev]})
                </option>
              ))}
            </Select>
          </Field>
          <Field id="webhook-url" label="URL" error={urlError} hint={urlHint}>
            <Input
              id="webhook-url"
              type="url"
              inputMode="url"
              value={url}
              placeholder="https://hooks.example.com/mailroom"
              onChange={(e) => {
                setUrl(e.target.value);
                setFieldErrors({});
              }}
              aria-invalid={Boolean(urlError)}
              aria-describedby={urlError ? "webhook-url-error" : "webhook-url-hint"}
              spellCheck={false}
              maxLength={2048}
            />
          </Field>
          <Button type="submit" className="md:mt-6" disabled={pending}>
            {pending ? "Registering…" : "Register"}
          </Button>
        </form>
        <div className="mt-3 flex flex-col gap-2">
          {error && !Object.keys(fieldErrors).length && <Alert tone="error" title="Not registered">{error}</Alert>}
          {created !== null && <Alert title={`Webhook ${created} registered`}>It appears in the list below; it has not been called yet.</Alert>}
        </div>
      </CardBody>
    </Card>
  );
}
