"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { acceptAsNewUserAction, acceptInvitationAction, type InviteState } from "../actions";

export function AcceptForm({ token, accountName }: { token: string; accountName: string }) {
  const [state, action, pending] = useActionState<InviteState, FormData>(acceptInvitationAction, {});
  return (
    <form action={action} className="flex flex-col gap-4">
      {state.error && <Alert tone="error" title="Not done">{state.error}</Alert>}
      <input type="hidden" name="token" value={token} />
      <Button type="submit" disabled={pending}>
        {pending ? "Joining…" : `Join ${accountName}`}
      </Button>
    </form>
  );
}

export function NewUserForm({ token, minLength }: { token: string; minLength: number }) {
  const [state, action, pending] = useActionState<InviteState, FormData>(acceptAsNewUserAction, {});
  return (
    <form action={action} className="flex flex-col gap-4">
      {state.error && <Alert tone="error" title="Not done">{state.error}</Alert>}
      <input type="hidden" name="token" value={token} />
      <Field id="invite-name" label="Your name (optional)">
        <Input id="invite-name" name="name" autoComplete="name" maxLength={100} />
      </Field>
      <Field id="invite-password" label="Choose a password">
        <Input id="invite-password" name="password" type="password" autoComplete="new-password" required minLength={minLength} />
      </Field>
      <Field id="invite-confirm" label="The password again">
        <Input id="invite-confirm" name="confirm" type="password" autoComplete="new-password" required minLength={minLength} />
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Joining…" : "Set the password and join"}
      </Button>
    </form>
  );
}
