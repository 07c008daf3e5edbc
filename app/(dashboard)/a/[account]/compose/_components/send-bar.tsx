"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { hasFieldErrors, isBusy, sendButtonLabel, type SendState } from "../_lib/send-state";
import type { FieldErrors } from "../_lib/draft";
import { formatBytes } from "./attachments";

/** The alerts above the form after a refused send: the form's own error, and a pointer to the marked fields. */
export function SendErrors({ errors }: { errors: FieldErrors }) {
  return (
    <>
      {errors._form && (
        <Alert tone="error" title="Not sent">
          <span data-testid="form-error">{errors._form}</span>
        </Alert>
      )}
      {hasFieldErrors(errors) && (
        <Alert tone="error" title="Not sent: check the highlighted fields">
          The message is unchanged; fix what is marked and send again.
        </Alert>
      )}
    </>
  );
}

/** Brings the first marked field (or alert) into view, once React has rendered the errors. */
export function revealFirstError(): void {
  setTimeout(() => document.querySelector<HTMLElement>("[aria-invalid='true'], [role='alert']")?.scrollIntoView({ block: "center" }), 0);
}

/** The Send button with the upload's progress, then the wait for the API. */
export function SendBar({ state }: { state: SendState }) {
  return (
    <div className="flex flex-wrap items-center gap-4 py-1">
      <Button type="submit" disabled={isBusy(state)} data-testid="send">
        {sendButtonLabel(state)}
      </Button>
      {state.kind === "uploading" && (
        <div className="flex min-w-64 flex-1 items-center gap-2 text-xs" data-testid="upload-progress">
          <progress className="h-2 flex-1" max={state.total} value={state.loaded} aria-label="Upload progress" />
          <span className="tabular-nums">
            {formatBytes(state.loaded)} / {formatBytes(state.total)}
          </span>
        </div>
      )}
      {state.kind === "waiting" && <span className="text-sm text-slate-600 dark:text-slate-400">Uploaded; waiting for the API…</span>}
    </div>
  );
}
