"use client";

import { useState, type ReactNode } from "react";
import { Button, type ButtonVariant } from "./button";
import { Drawer } from "./drawer";

/**
 * A button that asks before it acts: a modal dialog (native <dialog>, so
 * focus, Escape and the inert page come for free) that says what will
 * happen, with the destructive choice spelled out on its button.
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  onConfirm,
  variant = "danger",
  size = "sm",
  disabled,
  testId,
}: {
  label: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  variant?: ButtonVariant;
  size?: "sm" | "md";
  disabled?: boolean;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <Button variant={variant === "danger" ? "secondary" : variant} size={size} disabled={disabled} onClick={() => setOpen(true)} data-testid={testId}>
        {label}
      </Button>
      <Drawer open={open} onClose={() => setOpen(false)} title={title} side="center">
        <div className="flex flex-col gap-4 text-sm">
          <div className="text-slate-700 dark:text-slate-300">{children}</div>
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button
              variant={variant}
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                } finally {
                  setBusy(false);
                  setOpen(false);
                }
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </div>
      </Drawer>
    </>
  );
}
