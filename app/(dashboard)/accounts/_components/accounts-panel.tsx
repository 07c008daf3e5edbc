"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { NewKeyPanel } from "@/components/new-key-panel";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input, Select } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { createAccountAction, setAccountStatusAction, setDailyLimitAction } from "../actions";

export interface AccountView {
  accountId: string;
  name: string;
  plan: string;
  status: string;
  isDefault: boolean;
  perDay: number | null;
  createdAt: string;
  /** The owner's own role there, when they are a member. */
  role: string | null;
}

export function AccountsPanel({ accounts, plans, defaultPlan }: { accounts: AccountView[]; plans: readonly string[]; defaultPlan: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; apiKey: string; accountId: string } | null>(null);
  const [formKey, setFormKey] = useState(0);

  async function run<T>(call: () => Promise<{ ok: true; data: T } | { ok: false; error: string }>): Promise<T | undefined> {
    setError(null);
    try {
      const result = await call();
      if (!result.ok) {
        setError(result.error);
        return undefined;
      }
      startTransition(() => router.refresh());
      return result.data;
    } catch {
      setError("The request failed. Check your connection and sign-in, then try again.");
      return undefined;
    }
  }

  return (
    <>
      <Card data-testid="create-account">
        <CardHeader title="New account" description="An account sends with its own API keys, domains, limits and webhooks. Its first API key is shown once." />
        <CardBody className="flex flex-col gap-4">
          <form
            key={formKey}
            className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[1fr_10rem_1fr_auto]"
            onSubmit={async (e) => {
              e.preventDefault();
              const data = new FormData(e.currentTarget);
              const input = { name: String(data.get("name") ?? ""), plan: String(data.get("plan") ?? ""), domain: String(data.get("domain") ?? "") };
              const made = await run(() => createAccountAction(input));
              if (made) {
                setCreated(made);
                setFormKey((k) => k + 1);
              }
            }}
          >
            <Field id="account-name" label="Name">
              <Input id="account-name" name="name" required maxLength={200} autoComplete="off" />
            </Field>
            <Field id="account-plan" label="Plan">
              <Select id="account-plan" name="plan" defaultValue={defaultPlan}>
                {plans.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="account-domain" label="Sender domain (optional)">
              <Input id="account-domain" name="domain" maxLength={253} autoComplete="off" placeholder="mail.example.org" />
            </Field>
            <Button type="submit" disabled={pending}>
              Create account
            </Button>
          </form>
          {error && <Alert tone="error" title="Not done">{error}</Alert>}
          {created && (
            <NewKeyPanel lead={`${created.name} is created. Its API key`} secret={created.apiKey} testId="new-account-key">
              <Link href={`/a/${created.accountId}/settings`} className="text-brand-700 underline dark:text-brand-100">
                Open its settings
              </Link>
            </NewKeyPanel>
          )}
        </CardBody>
      </Card>
      <Card data-testid="accounts">
        <CardHeader title="All accounts" description={`${accounts.length} account${accounts.length === 1 ? "" : "s"}`} />
        <CardBody>
          <Table>
            <thead>
              <tr>
                <Th>Account</Th>
                <Th>Plan</Th>
                <Th>Per day</Th>
                <Th>Status</Th>
                <Th>Your role</Th>
                <Th>Created</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.accountId} data-testid="account-row">
                  <Td>
                    <Link href={`/a/${a.accountId}`} className="font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
                      {a.name}
                    </Link>
                    {a.isDefault && (
                      <Badge tone="accent" className="ml-2">
                        default
                      </Badge>
                    )}
                    <div className="font-mono text-xs text-slate-600 dark:text-slate-400">{a.accountId}</div>
                  </Td>
                  <Td>{a.plan}</Td>
                  <Td>
                    <form
                      className="flex items-center gap-1"
                      onSubmit={async (e) => {
                        e.preventDefault();
                        const perDay = String(new FormData(e.currentTarget).get("perDay") ?? "");
                        await run(() => setDailyLimitAction({ accountId: a.accountId, perDay }));
                      }}
                    >
                      <label className="sr-only" htmlFor={`per-day-${a.accountId}`}>
                        Daily limit of {a.name}
                      </label>
                      <Input
                        key={String(a.perDay)}
                        id={`per-day-${a.accountId}`}
                        name="perDay"
                        inputMode="numeric"
                        className="w-28"
                        defaultValue={a.perDay ?? ""}
                        placeholder="unlimited"
                      />
                      <Button type="submit" variant="secondary" size="sm" disabled={pending}>
                        Save
                      </Button>
                    </form>
                  </Td>
                  <Td>
                    <Badge tone={a.status === "active" ? "success" : "warning"}>{a.status}</Badge>
                  </Td>
                  <Td>{a.role ?? "owner (admin)"}</Td>
                  <Td className="whitespace-nowrap text-xs">{a.createdAt.replace("T", " ").slice(0, 16)}</Td>
                  <Td>
                    {a.status === "active" ? (
                      <ConfirmButton
                        label="Suspend"
                        title={`Suspend ${a.name}?`}
                        confirmLabel="Suspend"
                        onConfirm={async () => void (await run(() => setAccountStatusAction({ accountId: a.accountId, status: "suspended" })))}
                      >
                        <p>Its API keys are refused (code 12) until it is activated again. Its data stays.</p>
                      </ConfirmButton>
                    ) : (
                      <Button
                        variant="secondary"
                        size="sm"
                        disabled={pending}
                        onClick={() => void run(() => setAccountStatusAction({ accountId: a.accountId, status: "active" }))}
                      >
                        Activate
                      </Button>
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </CardBody>
      </Card>
    </>
  );
}
