"use client";

import Link from "next/link";
import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonClass } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { changePasswordAction, type ChangePasswordState } from "../actions";

export function PasswordForm({ next, offerSkip, email }: { next: string; offerSkip: boolean; email: string }) {
  const [state, action, pending] = useActionState<ChangePasswordState, FormData>(changePasswordAction, {});
  const err = (name: "current" | "password" | "confirm") => state.fieldErrors?.[name]?.[0];
  const described = (name: "current" | "password" | "confirm") => (err(name) ? `${name}-error` : undefined);
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      {state.error && (
        <Alert tone="error" title={state.error}>
          Nothing was changed.
        </Alert>
      )}
      <input type="hidden" name="next" value={next} />
      {/* For password managers: the account the new password belongs to. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      <Field id="current" label="Current password" error={err("current")}>
        <Input id="current" name="current" type="password" autoComplete="current-password" required aria-invalid={err("current") ? true : undefined} aria-describedby={described("current")} />
      </Field>
      <Field id="password" label="New password" hint="At least 8 characters" error={err("password")}>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          aria-invalid={err("password") ? true : undefined}
          aria-describedby={described("password") ?? "password-hint"}
        />
      </Field>
      <Field id="confirm" label="New password again" error={err("confirm")}>
        <Input id="confirm" name="confirm" type="password" autoComplete="new-password" required aria-invalid={err("confirm") ? true : undefined} aria-describedby={described("confirm")} />
      </Field>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Changing…" : "Change password"}
        </Button>
        {offerSkip && (
          <Link href={next} className={buttonClass("ghost")}>
            Not now
          </Link>
        )}
      </div>
    </form>
  );
}
