import "server-only";
import { changeOwnPassword, endStaffSessions, getStaffUser, MIN_PASSWORD_LENGTH } from "../domain/staff/staff-users";
import { getServerContext } from "../runtime";

/** What the sign-in and password pages need (not scoped by account). */

export { throttleMessage } from "../domain/staff/sign-in-throttle";
export { DomainError } from "../domain/shared/domain-error";
export { MIN_PASSWORD_LENGTH };

export function oidcEnabled(): boolean {
  return Boolean(getServerContext().config.auth.oidc);
}

/** Signed in with a password generated for them (ADR 0505). */
export async function mustChangePassword(email: string): Promise<boolean> {
  return (await getStaffUser(getServerContext().database, email))?.mustChangePassword === true;
}

export async function changeMyPassword(email: string, current: string, next: string): Promise<void> {
  await changeOwnPassword(getServerContext().database, email, current, next);
}

/** "Sign out everywhere" for the signed-in user: ends every session they have, this one too (docs/adr/0507). */
export async function endMySessions(email: string): Promise<void> {
  await endStaffSessions(getServerContext().database, email);
}
