"use client";

import { useState, useTransition } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { endSessionsAction } from "../actions";

/** An owner ends every dashboard session of a staff user (a lost laptop, someone leaving; docs/adr/0507). */
export function EndSessionsCard() {
  const [pending, startTransition] = useTransition();
  const [result, setResult] = useState<{ ok: true; email: string } | { ok: false; error: string } | null>(null);
  return (
    <Card>
      <CardHeader
        title="Sign a staff user out everywhere"
        description="Ends every dashboard session of the user, in every browser; they sign in again. Changing a password, a role or a membership does this too."
      />
      <CardBody>
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            const email = String(new FormData(e.currentTarget).get("email") ?? "");
            startTransition(async () => {
              const r = await endSessionsAction({ email });
              setResult(r.ok ? { ok: true, email: r.data.email } : { ok: false, error: r.error });
            });
          }}
        >
          <Field id="end-sessions-email" label="Staff user's email">
            <Input id="end-sessions-email" name="email" type="email" required maxLength={254} autoComplete="off" />
          </Field>
          <Button type="submit" variant="danger" disabled={pending}>
            Sign out everywhere
          </Button>
        </form>
        {result && (
          <div className="mt-3">
            {result.ok ? <Alert tone="info" title={`Every session of ${result.email} has ended.`} /> : <Alert tone="error" title={result.error} />}
          </div>
        )}
      </CardBody>
    </Card>
  );
}
