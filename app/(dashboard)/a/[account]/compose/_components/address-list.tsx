"use client";

import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { LIST_LABELS, LIST_LIMITS, listEntries, type AddressListKey, type DraftAddress, type FieldErrors } from "../_lib/draft";

/** "Ann <ann@x.org>, bob@y.org; …" → address rows (for pasting a list into one field). */
export function splitAddresses(text: string): DraftAddress[] {
  return text
    .split(/[,;\n]+/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^(.*?)\s*<([^>]+)>$/.exec(part);
      return m ? { name: m[1]!.replace(/^"|"$/g, "").trim(), email: m[2]!.trim() } : { name: "", email: part };
    });
}

/** One address list of the form (To, CC, BCC, Reply-To): rows of name and email, with the spec's count shown. */
export function AddressList({
  field,
  value,
  onChange,
  errors,
}: {
  field: AddressListKey;
  value: DraftAddress[];
  onChange: (next: DraftAddress[]) => void;
  errors: FieldErrors;
}) {
  const label = LIST_LABELS[field];
  const max = LIST_LIMITS[field];
  const count = listEntries(value).length;
  const over = count > max;
  const listError = errors[field];
  const id = `addr-${field}`;
  const set = (i: number, patch: Partial<DraftAddress>) => onChange(value.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={listError ? `${id}-error` : undefined} data-testid={`list-${field}`}>
      <legend className="flex w-full items-center justify-between text-sm font-medium text-slate-700 dark:text-slate-200">
        <span>{label}</span>
        <span className={cn("text-xs font-normal", over ? "font-semibold text-red-700 dark:text-red-400" : "text-slate-600 dark:text-slate-400")} data-testid={`count-${field}`}>
          {count} / {max}
        </span>
      </legend>
      {value.map((a, i) => {
        const emailError = errors[`${field}[${i}].email`];
        const nameError = errors[`${field}[${i}].name`];
        return (
          <div key={i} className="flex flex-col gap-1">
            <div className="grid grid-cols-[2fr_3fr_auto] gap-2">
              <Input
                aria-label={`${label} ${i + 1} name`}
                placeholder="Name (optional)"
                value={a.name}
                onChange={(e) => set(i, { name: e.target.value })}
                aria-invalid={Boolean(nameError)}
              />
              <Input
                aria-label={`${label} ${i + 1} email`}
                placeholder="email@example.org"
                type="email"
                value={a.email}
                aria-invalid={Boolean(emailError)}
                aria-describedby={emailError ? `${id}-${i}-error` : undefined}
                onChange={(e) => set(i, { email: e.target.value })}
                onPaste={(e) => {
                  const text = e.clipboardData.getData("text");
                  const rows = splitAddresses(text);
                  if (rows.length > 1 || /</.test(text)) {
                    e.preventDefault();
                    onChange([...value.slice(0, i), ...rows, ...value.slice(i + 1)]);
                  }
                }}
                className={cn(emailError && "border-red-600 dark:border-red-500")}
              />
              <Button variant="ghost" size="md" aria-label={`Remove ${label} ${i + 1}`} onClick={() => onChange(value.filter((_, j) => j !== i))}>
                ✕
              </Button>
            </div>
            {(emailError || nameError) && (
              <p id={`${id}-${i}-error`} className="text-xs font-medium text-red-700 dark:text-red-400" data-testid="field-error">
                {emailError ?? nameError}
              </p>
            )}
          </div>
        );
      })}
      <div>
        <Button variant="ghost" size="sm" onClick={() => onChange([...value, { name: "", email: "" }])}>
          + Add {label} address
        </Button>
        {field === "To" && (
          <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">Tip: paste a list (“Ann &lt;ann@x.org&gt;, bob@y.org”) into an email field.</span>
        )}
      </div>
      {listError && (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-700 dark:text-red-400" data-testid={`error-${field}`}>
          {listError}
        </p>
      )}
    </fieldset>
  );
}
