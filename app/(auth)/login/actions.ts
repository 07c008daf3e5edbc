"use server";

import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import { z } from "zod";
import { signIn } from "@/lib/auth/auth";
import { throttledSeconds } from "@/lib/auth/auth-config";
import { safeReturnPath } from "@/lib/auth/safe-return";
import { mustChangePassword, oidcEnabled, throttleMessage } from "@/lib/dashboard/sign-in";

export interface SignInState {
  error?: string;
  /** The line under the error (what to do). */
  hint?: string;
  fieldErrors?: { email?: string[]; password?: string[] };
  email?: string;
}

const signInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email").email("Enter an email address like ann@example.com"),
  password: z.string().min(1, "Enter your password"),
  callbackUrl: z.string().optional(),
});

export async function signInWithPassword(_prev: SignInState, formData: FormData): Promise<SignInState> {
  const parsed = signInSchema.safeParse({
    email: formData.get("email"),
    password: formData.get("password"),
    callbackUrl: formData.get("callbackUrl") ?? undefined,
  });
  if (!parsed.success) {
    return { fieldErrors: z.flattenError(parsed.error).fieldErrors, email: String(formData.get("email") ?? "") };
  }
  const returnTo = safeReturnPath(parsed.data.callbackUrl, "/");
  let target: string;
  try {
    target = await signIn("credentials", { email: parsed.data.email, password: parsed.data.password, redirectTo: returnTo, redirect: false });
  } catch (err) {
    // Only Auth.js's own errors mean "refused" (a wrong password, or too many failures).
    if (err instanceof AuthError) {
      const wait = throttledSeconds((err as { code?: unknown }).code);
      if (wait !== undefined) {
        return { error: throttleMessage(wait), hint: "Sign-in is paused after repeated wrong passwords, to stop guessing.", email: parsed.data.email };
      }
      return { error: "Wrong email or password.", email: parsed.data.email };
    }
    throw err;
  }
  // Signed in with a password generated for them: offer to choose their own first (ADR 0505).
  if (await mustChangePassword(parsed.data.email)) redirect(`/account/password?next=${encodeURIComponent(returnTo)}`);
  redirect(target);
}

export async function signInWithOidc(formData: FormData): Promise<void> {
  // Called directly on an install without OIDC: back to the form, not an error page.
  if (!oidcEnabled()) redirect("/login");
  await signIn("oidc", { redirectTo: safeReturnPath(formData.get("callbackUrl"), "/") });
}
