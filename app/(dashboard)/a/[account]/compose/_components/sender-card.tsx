"use client";

import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input, Select } from "@/components/ui/input";
import type { Draft, FieldErrors } from "../_lib/draft";
import { localPartOf, unverifiedDomainHint, type DomainChoice, type SetDraftField } from "../_lib/draft-edits";
import { AddressList } from "./address-list";

/** From (local part @ domain, name) and the four address lists. */
export function SenderCard({ domains, draft, errors, set }: { domains: DomainChoice[]; draft: Draft; errors: FieldErrors; set: SetDraftField }) {
  return (
    <Card>
      <CardHeader title="Sender and recipients" />
      <CardBody className="flex flex-col gap-4">
        <div className="grid grid-cols-1 gap-3 md:grid-cols-[1fr_auto_1fr_1fr]">
          <Field id="from-local" label="From address" error={errors["From.email"]}>
            <Input
              id="from-local"
              value={draft.from.local}
              placeholder="hello"
              aria-invalid={Boolean(errors["From.email"])}
              aria-describedby={errors["From.email"] ? "from-local-error" : undefined}
              onChange={(e) => set("from", { ...draft.from, local: localPartOf(e.target.value) })}
              autoComplete="off"
            />
          </Field>
          <span className="hidden self-start pt-8 text-slate-500 md:block" aria-hidden>
            @
          </span>
          <Field id="from-domain" label="Sender domain" error={errors.From} hint={unverifiedDomainHint(domains, draft.from.domain)}>
            <Select id="from-domain" value={draft.from.domain} aria-invalid={Boolean(errors.From)} onChange={(e) => set("from", { ...draft.from, domain: e.target.value })}>
              <DomainOptions domains={domains} />
            </Select>
          </Field>
          <Field id="from-name" label="From name" error={errors["From.name"]}>
            <Input id="from-name" value={draft.from.name} placeholder="Acme Support" onChange={(e) => set("from", { ...draft.from, name: e.target.value })} />
          </Field>
        </div>
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
          <AddressList field="To" value={draft.to} onChange={(v) => set("to", v)} errors={errors} />
          <AddressList field="CC" value={draft.cc} onChange={(v) => set("cc", v)} errors={errors} />
          <AddressList field="BCC" value={draft.bcc} onChange={(v) => set("bcc", v)} errors={errors} />
          <AddressList field="ReplyTo" value={draft.replyTo} onChange={(v) => set("replyTo", v)} errors={errors} />
        </div>
      </CardBody>
    </Card>
  );
}

/** The verified domains first; the others in a group of their own, marked. */
function DomainOptions({ domains }: { domains: DomainChoice[] }) {
  return (
    <>
      {domains.length === 0 && <option value="">No sender domains</option>}
      {domains.filter((d) => d.verified).map((d) => (
        <option key={d.name} value={d.name}>
          {d.name}
        </option>
      ))}
      {domains.some((d) => !d.verified) && (
        <optgroup label="Not verified (the API refuses them)">
          {domains.filter((d) => !d.verified).map((d) => (
            <option key={d.name} value={d.name}>
              {d.name} (not verified)
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
}
