"use server";

import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import { z } from "zod";
import { getStaffSession, signIn, signOut } from "@/lib/auth/auth";
import { acceptAsNewUser, acceptAsSignedIn } from "@/lib/dashboard/invitations";
import { DomainError, MIN_PASSWORD_LENGTH } from "@/lib/dashboard/sign-in";

/**
 * Accepting an invitation (ADR 0512): as the signed-in staff user whose
 * email was invited, or, for an address with no staff user yet, by choosing
 * a password. Server actions are public POST endpoints: the token is
 * checked again here, whatever the page showed.
 */

export interface InviteState {
  error?: string;
}

const token = z.string().max(200);

export async function acceptInvitationAction(_prev: InviteState, formData: FormData): Promise<InviteState> {
  const parsed = token.safeParse(formData.get("token"));
  if (!parsed.success) return { error: "This invitation is not valid." };
  const session = await getStaffSession();
  if (!session) redirect(`/login?callbackUrl=${encodeURIComponent(`/invite/${parsed.data}`)}`);
  let accountId: string;
  try {
    accountId = await acceptAsSignedIn(parsed.data, session.email);
  } catch (err) {
    if (err instanceof DomainError) return { error: err.message };
    throw err;
  }
  redirect(`/a/${accountId}`);
}

const newUser = z.object({
  token,
  name: z.string().trim().max(100).optional(),
  password: z.string().min(MIN_PASSWORD_LENGTH, `At least ${MIN_PASSWORD_LENGTH} characters`).max(200),
  confirm: z.string().max(200),
});

export async function acceptAsNewUserAction(_prev: InviteState, formData: FormData): Promise<InviteState> {
  const parsed = newUser.safeParse({
    token: formData.get("token"),
    name: formData.get("name") ?? undefined,
    password: formData.get("password"),
    confirm: formData.get("confirm"),
  });
  if (!parsed.success) return { error: Object.values(z.flattenError(parsed.error).fieldErrors).flat()[0] ?? "Check the form" };
  if (parsed.data.password !== parsed.data.confirm) return { error: "The two passwords differ" };
  let made: { accountId: string; email: string };
  try {
    made = await acceptAsNewUser(parsed.data.token, { password: parsed.data.password, name: parsed.data.name });
  } catch (err) {
    if (err instanceof DomainError) return { error: err.message };
    throw err;
  }
  try {
    await signIn("credentials", { email: made.email, password: parsed.data.password, redirect: false });
  } catch (err) {
    // Joined; only the automatic sign-in did not happen (throttled): the sign-in page does it.
    if (err instanceof AuthError) redirect(`/login?callbackUrl=${encodeURIComponent(`/a/${made.accountId}`)}`);
    throw err;
  }
  redirect(`/a/${made.accountId}`);
}

export async function signOutToInvitationAction(formData: FormData): Promise<void> {
  const parsed = token.safeParse(formData.get("token"));
  await signOut({ redirectTo: parsed.success ? `/invite/${encodeURIComponent(parsed.data)}` : "/login" });
}
