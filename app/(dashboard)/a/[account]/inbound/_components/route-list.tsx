"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input } from "@/components/ui/input";
import { useAccountId } from "@/components/shell/use-account";
import type { ListInboundRoutesResponse } from "@/lib/contract/inbound";
import { createInboundRouteAction, deleteInboundRouteAction } from "../actions";

const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

/** The account's routes; an admin adds and deletes them (the form and buttons are left out for other roles). */
export function RouteList({ routes, canManage }: { routes: ListInboundRoutesResponse["Routes"]; canManage: boolean }) {
  const accountId = useAccountId();
  const router = useRouter();
  const [match, setMatch] = useState("");
  const [url, setUrl] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function add() {
    setError(null);
    setFieldErrors({});
    setPending(true);
    try {
      const result = await createInboundRouteAction(accountId, { Match: match, WebhookURL: url });
      if (!result.ok) {
        setError(result.error);
        setFieldErrors(result.fieldErrors ?? {});
        return;
      }
      setMatch("");
      setUrl("");
      router.refresh();
    } catch {
      setError("The request failed. Check your connection and sign-in, then try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <Card>
      <CardHeader
        title={`Routes (${routes.length})`}
        description="An exact address wins over a whole domain (*@domain); local+tag@domain matches local@domain and reports the tag as MailboxHash."
      />
      {canManage && (
        <CardBody className="border-b border-slate-200 dark:border-slate-800">
          <form
            noValidate
            aria-label="Add a route"
            className="grid grid-cols-1 items-start gap-3 md:grid-cols-[18rem_1fr_auto]"
            onSubmit={(e) => {
              e.preventDefault();
              void add();
            }}
          >
            <Field id="route-match" label="Address or *@domain" error={fieldErrors.Match} hint="On a verified domain of the account">
              <Input
                id="route-match"
                value={match}
                placeholder="support@in.example.com"
                onChange={(e) => setMatch(e.target.value)}
                aria-invalid={Boolean(fieldErrors.Match)}
                aria-describedby={fieldErrors.Match ? "route-match-error" : "route-match-hint"}
                spellCheck={false}
                maxLength={320}
              />
            </Field>
            <Field id="route-url" label="Post to URL" error={fieldErrors.WebhookURL} hint="Signed with the account's webhook signing key">
              <Input
                id="route-url"
                type="url"
                inputMode="url"
                value={url}
                placeholder="https://app.example.com/inbound"
                onChange={(e) => setUrl(e.target.value)}
                aria-invalid={Boolean(fieldErrors.WebhookURL)}
                aria-describedby={fieldErrors.WebhookURL ? "route-url-error" : "route-url-hint"}
                spellCheck={false}
                maxLength={2048}
              />
            </Field>
            <Button type="submit" className="md:mt-6" disabled={pending}>
              {pending ? "Adding…" : "Add route"}
            </Button>
          </form>
          {error && !Object.keys(fieldErrors).length && (
            <div className="mt-3">
              <Alert tone="error" title="Not done">
                {error}
              </Alert>
            </div>
          )}
        </CardBody>
      )}
      {routes.length === 0 ? (
        <EmptyState title="No routes yet">
          <p>Mail for an address without a route is refused at RCPT (550 5.1.1).</p>
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {routes.map((r) => (
            <li key={r.RouteID} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3" data-testid="route-row" data-route-id={r.RouteID}>
              <div className="min-w-0 flex-1">
                <p className="break-all font-mono text-sm font-medium" data-testid="route-match">
                  {r.Match}
                </p>
                <p className="mt-1 break-all text-xs text-slate-600 dark:text-slate-400">
                  → {r.WebhookURL} · #{r.RouteID} · added {time(r.CreatedAt)} UTC
                </p>
              </div>
              {canManage && (
                <ConfirmButton
                  label="Delete"
                  title={`Delete the route for ${r.Match}?`}
                  confirmLabel="Delete the route"
                  testId="delete-route"
                  onConfirm={async () => {
                    setError(null);
                    try {
                      const result = await deleteInboundRouteAction(accountId, r.RouteID);
                      if (!result.ok) setError(result.error);
                    } catch {
                      setError("The request failed. Check your connection and sign-in, then try again.");
                    }
                    router.refresh();
                  }}
                >
                  <p>Mail for this address is refused from now on. Messages already received stay readable until their retention ends.</p>
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
