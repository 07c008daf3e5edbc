"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { signIn } from "@/lib/auth/auth";
import { requireStaff } from "@/lib/auth/require-role";
import { safeReturnPath } from "@/lib/auth/safe-return";
import { changeMyPassword, DomainError, MIN_PASSWORD_LENGTH } from "@/lib/dashboard/sign-in";

export interface ChangePasswordState {
  error?: string;
  fieldErrors?: { current?: string[]; password?: string[]; confirm?: string[] };
}

const schema = z
  .object({
    current: z.string().min(1, "Enter your current password").max(1000),
    password: z.string().min(MIN_PASSWORD_LENGTH, `At least ${MIN_PASSWORD_LENGTH} characters`).max(1000, "At most 1000 characters"),
    confirm: z.string().max(1000),
    next: z.string().max(2000).optional(),
  })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "The two new passwords differ" });

/** The signed-in staff member's own password (any role); clears the first-sign-in request (ADR 0505). */
export async function changePasswordAction(_prev: ChangePasswordState, formData: FormData): Promise<ChangePasswordState> {
  const staff = await requireStaff("/account/password");
  const parsed = schema.safeParse({
    current: formData.get("current") ?? "",
    password: formData.get("password") ?? "",
    confirm: formData.get("confirm") ?? "",
    next: formData.get("next") ?? undefined,
  });
  if (!parsed.success) return { fieldErrors: z.flattenError(parsed.error).fieldErrors };
  try {
    await changeMyPassword(staff.email, parsed.data.current, parsed.data.password);
  } catch (err) {
    if (err instanceof DomainError) return { error: err.message };
    throw err;
  }
  revalidatePath("/", "layout"); // the shell's banner goes
  // The change ended every session of the user, this one too (ADR 0507): a new one, with the new password.
  const target = await signIn("credentials", { email: staff.email, password: parsed.data.password, redirect: false, redirectTo: safeReturnPath(parsed.data.next, "/") }).catch(() => "/login");
  redirect(safeReturnPath(target, "/login"));
}
