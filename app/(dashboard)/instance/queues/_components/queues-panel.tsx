"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import type { QueueView } from "@/lib/dashboard/queues";
import { bounceDestinationAction, resumeDestinationAction, retryDestinationNowAction, suspendDestinationAction } from "../actions";

const STATE_TONES: Record<QueueView["state"], BadgeTone> = { active: "success", throttled: "info", held: "warning", suspended: "danger" };

/** A key names domains (retry now, bounce) when it is `relay` or has a dot and no comma (not a provider, not an MX host set). */
const namesDomains = (key: string) => key === "relay" || (key.includes(".") && !key.includes(","));

function when(iso: string | null): string {
  return iso ? iso.replace("T", " ").slice(0, 16) : "—";
}

export function QueuesPanel({ queues }: { queues: QueueView[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);

  async function run<T>(call: () => Promise<{ ok: true; data: T } | { ok: false; error: string }>, done?: (data: T) => string): Promise<boolean> {
    setError(null);
    setNotice(null);
    try {
      const result = await call();
      if (!result.ok) {
        setError(result.error);
        return false;
      }
      if (done) setNotice(done(result.data));
      startTransition(() => router.refresh());
      return true;
    } catch {
      setError("The request failed. Check your connection and sign-in, then try again.");
      return false;
    }
  }

  return (
    <>
      <Card data-testid="suspend-destination">
        <CardHeader title="Suspend a destination" description="No connection is opened to it until it is resumed or the time is up. Leave the account empty for every account." />
        <CardBody className="flex flex-col gap-4">
          <form
            key={formKey}
            className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[1fr_1fr_8rem_1fr_auto]"
            onSubmit={async (e) => {
              e.preventDefault();
              const data = new FormData(e.currentTarget);
              const input = {
                key: String(data.get("key") ?? ""),
                accountId: String(data.get("accountId") ?? ""),
                forMinutes: String(data.get("forMinutes") ?? ""),
                reason: String(data.get("reason") ?? ""),
              };
              if (await run(() => suspendDestinationAction(input), () => `Suspended ${input.key.trim().toLowerCase()}`)) setFormKey((k) => k + 1);
            }}
          >
            <Field id="queue-key" label="Destination">
              <Input id="queue-key" name="key" required maxLength={1000} autoComplete="off" placeholder="gmail, example.org or relay" />
            </Field>
            <Field id="queue-account" label="Account id (optional)">
              <Input id="queue-account" name="accountId" maxLength={36} autoComplete="off" />
            </Field>
            <Field id="queue-minutes" label="Minutes (optional)">
              <Input id="queue-minutes" name="forMinutes" inputMode="numeric" maxLength={7} autoComplete="off" />
            </Field>
            <Field id="queue-reason" label="Reason">
              <Input id="queue-reason" name="reason" maxLength={500} autoComplete="off" />
            </Field>
            <Button type="submit" disabled={pending}>
              Suspend
            </Button>
          </form>
          {error && <Alert tone="error" title="Not done">{error}</Alert>}
          {notice && <Alert title="Done">{notice}</Alert>}
        </CardBody>
      </Card>
      <Card data-testid="queues">
        <CardHeader title="Destinations" description={`${queues.length} with mail waiting, a hold or a throttle`} />
        <CardBody>
          {queues.length === 0 ? (
            <EmptyState title="Nothing is waiting">No mail is queued or deferred, and no destination is suspended.</EmptyState>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>Destination</Th>
                  <Th>State</Th>
                  <Th>Queued</Th>
                  <Th>In flight</Th>
                  <Th>Deferred</Th>
                  <Th>Per minute</Th>
                  <Th>Next try</Th>
                  <Th>Last replies</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody>
                {queues.map((q) => (
                  <tr key={q.key} data-testid="queue-row">
                    <Td>
                      <span className="font-mono text-sm">{q.key}</span>
                      {q.destination && q.destination !== q.key && <div className="text-xs text-slate-600 dark:text-slate-400">via {q.destination}</div>}
                    </Td>
                    <Td>
                      <Badge tone={STATE_TONES[q.state]}>{q.state}</Badge>
                      {q.holds.map((h, i) => (
                        <div key={i} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                          {h.source === "automatic" ? "automatically" : `by ${h.placedBy}`}
                          {h.accountId ? `, account ${h.accountId}` : ""}
                          {h.until ? `, until ${when(h.until)}` : ", until resumed"}
                          {h.reason ? `: ${h.reason}` : ""}
                        </div>
                      ))}
                      {q.throttles.map((t, i) => (
                        <div key={`t${i}`} className="mt-1 text-xs text-slate-600 dark:text-slate-400" data-testid="queue-throttle">
                          {t.perMinute}/min, {t.connections} connection{t.connections === 1 ? "" : "s"}, until {when(t.endsAt)}
                          {t.key !== q.key ? ` (${t.key})` : ""}: {t.reason}
                        </div>
                      ))}
                    </Td>
                    <Td>{q.queued}</Td>
                    <Td>{q.inFlight}</Td>
                    <Td>{q.deferred}</Td>
                    <Td>{q.attemptsLastMinute}</Td>
                    <Td className="whitespace-nowrap text-xs">{when(q.nextAttemptAt)}</Td>
                    <Td className="max-w-xs text-xs">
                      {q.lastReplies.length === 0 ? "—" : q.lastReplies.map((r, i) => <div key={i} className="truncate" title={r}>{r}</div>)}
                    </Td>
                    <Td>
                      <div className="flex flex-wrap gap-2">
                        {q.holds.length > 0 && (
                          <Button
                            variant="secondary"
                            size="sm"
                            disabled={pending}
                            onClick={() => void run(() => resumeDestinationAction({ key: q.key }), () => `Resumed ${q.key}`)}
                          >
                            Resume
                          </Button>
                        )}
                        {namesDomains(q.key) && q.deferred > 0 && (
                          <Button
                            variant="secondary"
                            size="sm"
                            disabled={pending}
                            onClick={() => void run(() => retryDestinationNowAction({ key: q.key }), (d) => `${d.recipients} deferred recipient(s) of ${q.key} due now`)}
                          >
                            Retry now
                          </Button>
                        )}
                        {namesDomains(q.key) && q.queued + q.deferred > 0 && (
                          <ConfirmButton
                            label="Bounce"
                            title={`Bounce the mail waiting for ${q.key}?`}
                            confirmLabel="Bounce"
                            onConfirm={async () =>
                              void (await run(() => bounceDestinationAction({ key: q.key, reason: `bounced from the dashboard's Queues page` }), (d) => `${d.failed} recipient(s) failed`))
                            }
                          >
                            <p>
                              Each of its {q.queued + q.deferred} waiting recipients fails, with a failed event and its webhook notification. This cannot be undone.
                            </p>
                          </ConfirmButton>
                        )}
                      </div>
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardBody>
      </Card>
    </>
  );
}
