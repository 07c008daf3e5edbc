import type { FieldErrors } from "./draft";

/**
 * The compose form's send as states (idle → uploading → waiting → sent, or
 * back to idle with errors) and the reading of the /compose/send answer into
 * either a MessageID or the errors to show. Pure: the form only wires them.
 */

export type SendState =
  | { kind: "idle" }
  | { kind: "uploading"; loaded: number; total: number }
  | { kind: "waiting" }
  | { kind: "sent"; messageId: string };

export const IDLE: SendState = { kind: "idle" };

/** The first state of a send: nothing uploaded yet. */
export const UPLOAD_STARTED: SendState = { kind: "uploading", loaded: 0, total: 1 };

/** Upload progress: once every byte is out, the form waits for the API's answer. */
export function progressState(loaded: number, total: number): SendState {
  return loaded >= total ? { kind: "waiting" } : { kind: "uploading", loaded, total };
}

export function isBusy(state: SendState): boolean {
  return state.kind === "uploading" || state.kind === "waiting";
}

export function sendButtonLabel(state: SendState): string {
  return state.kind === "uploading" ? "Uploading…" : state.kind === "waiting" ? "Sending…" : "Send";
}

export type SendOutcome = { kind: "sent"; messageId: string } | { kind: "refused"; errors: FieldErrors };

/** The upload failed before any answer: the form keeps its content. */
export const NETWORK_FAILURE: SendOutcome = { kind: "refused", errors: { _form: "The upload failed (network). The form keeps its content: send again." } };

/** What the /compose/send answer means for the form: a MessageID, or the errors to show on its fields. */
export function readSendAnswer(res: { status: number; body: unknown }): SendOutcome {
  const body = (res.body ?? {}) as { ok?: boolean; messageId?: string; errors?: FieldErrors; error?: string };
  if (res.status === 401) {
    return { kind: "refused", errors: { _form: "Your session ended. Sign in again in another tab, then send: the form keeps its content." } };
  }
  if (res.status === 403) return { kind: "refused", errors: { _form: "Your role may not send messages." } };
  if (body.ok && body.messageId) return { kind: "sent", messageId: body.messageId };
  return { kind: "refused", errors: body.errors ?? { _form: `The server answered ${res.status}. Try again.` } };
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

/** Whether an error sits on a field (not only on the form as a whole). */
export function hasFieldErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).some((k) => k !== "_form");
}
