"use client";

import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input, Select } from "@/components/ui/input";
import { MAX_MESSAGE_BYTES } from "@/lib/contract/email";
import type { DraftAttachment, FieldErrors } from "../_lib/draft";

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** A content id from a file name: "Company Logo.png" → "company-logo". */
export function contentIdFor(filename: string, taken: string[]): string {
  const base = filename.replace(/\.[^.]*$/, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "image";
  let id = base;
  for (let n = 2; taken.includes(id); n++) id = `${base}-${n}`;
  return id;
}

export interface AttachmentItem {
  file: File;
  meta: DraftAttachment;
}

/** File picker and drop zone, the list with type, size, placement and content id, and the 10 MB meter. */
export function Attachments({
  items,
  onChange,
  bodyBytes,
  errors,
  onInsertImage,
}: {
  items: AttachmentItem[];
  onChange: (next: AttachmentItem[]) => void;
  bodyBytes: number;
  errors: FieldErrors;
  onInsertImage: (contentId: string, filename: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const total = bodyBytes + items.reduce((n, i) => n + i.file.size, 0);
  const ratio = total / MAX_MESSAGE_BYTES;
  const add = (files: FileList | File[]) => {
    const next = [...items];
    for (const file of Array.from(files)) {
      const isImage = file.type.startsWith("image/");
      next.push({
        file,
        meta: {
          filename: file.name,
          type: file.type,
          size: file.size,
          disposition: "attachment",
          contentId: isImage ? contentIdFor(file.name, next.map((i) => i.meta.contentId)) : "",
        },
      });
    }
    onChange(next);
  };
  const update = (index: number, patch: Partial<DraftAttachment>) =>
    onChange(items.map((item, i) => (i === index ? { ...item, meta: { ...item.meta, ...patch } } : item)));
  return (
    <div className="flex flex-col gap-3" data-testid="attachments">
      <div
        role="group"
        aria-label="Attachments drop zone"
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          if (e.dataTransfer.files.length) add(e.dataTransfer.files);
        }}
        className={cn(
          "flex flex-col items-center gap-2 rounded-md border-2 border-dashed px-4 py-6 text-center text-sm",
          dragging ? "border-brand-500 bg-brand-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-700",
        )}
      >
        <p>Drop files here, or</p>
        <Button variant="secondary" size="sm" onClick={() => input.current?.click()}>
          Choose files…
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          className="sr-only"
          aria-label="Attach files"
          data-testid="file-input"
          onChange={(e) => {
            if (e.target.files?.length) add(e.target.files);
            e.target.value = "";
          }}
        />
      </div>
      <div>
        <div className="flex justify-between text-xs text-slate-600 dark:text-slate-400">
          <span>Message size (bodies + attachments)</span>
          <span data-testid="size-meter-text" className={cn(ratio > 1 && "font-semibold text-red-700 dark:text-red-400")}>
            {formatBytes(total)} of 10 MB
          </span>
        </div>
        <meter
          className="mt-1 h-2 w-full"
          min={0}
          max={MAX_MESSAGE_BYTES}
          low={MAX_MESSAGE_BYTES * 0.7}
          high={MAX_MESSAGE_BYTES * 0.9}
          optimum={0}
          value={Math.min(total, MAX_MESSAGE_BYTES)}
          aria-label="Message size against the 10 MB limit"
        />
        {errors.Attachments && (
          <p role="alert" className="mt-1 text-xs font-medium text-red-700 dark:text-red-400" data-testid="error-Attachments">
            {errors.Attachments}
          </p>
        )}
      </div>
      {items.length > 0 && (
        <ul className="flex flex-col divide-y divide-slate-200 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
          {items.map((item, i) => {
            const error = errors[`Attachments[${i}]`];
            return (
              <li key={`${item.meta.filename}-${i}`} className="flex flex-col gap-2 p-3 text-sm" data-testid="attachment-row">
                <div className="flex flex-wrap items-center gap-3">
                  <span className="min-w-0 flex-1 truncate font-medium" title={item.meta.filename}>
                    {item.meta.filename}
                  </span>
                  <span className="text-xs text-slate-600 dark:text-slate-400">{item.meta.type || "type from name"}</span>
                  <span className="text-xs tabular-nums text-slate-600 dark:text-slate-400">{formatBytes(item.file.size)}</span>
                  <Button variant="ghost" size="sm" aria-label={`Remove ${item.meta.filename}`} onClick={() => onChange(items.filter((_, j) => j !== i))}>
                    Remove
                  </Button>
                </div>
                <div className="flex flex-wrap items-center gap-3">
                  <label className="flex items-center gap-2 text-xs">
                    Placement
                    <Select
                      className="h-8 w-36"
                      value={item.meta.disposition}
                      aria-label={`Placement of ${item.meta.filename}`}
                      onChange={(e) => {
                        const disposition = e.target.value as DraftAttachment["disposition"];
                        update(i, {
                          disposition,
                          contentId:
                            disposition === "inline" && !item.meta.contentId
                              ? contentIdFor(item.meta.filename, items.map((x) => x.meta.contentId))
                              : item.meta.contentId,
                        });
                      }}
                    >
                      <option value="attachment">attachment</option>
                      <option value="inline">inline image</option>
                    </Select>
                  </label>
                  {item.meta.disposition === "inline" && (
                    <>
                      <label className="flex items-center gap-2 text-xs">
                        Content id
                        <Input
                          className="h-8 w-40 font-mono"
                          value={item.meta.contentId}
                          aria-label={`Content id of ${item.meta.filename}`}
                          onChange={(e) => update(i, { contentId: e.target.value.replace(/[\s<>]/g, "") })}
                        />
                      </label>
                      <Button variant="secondary" size="sm" onClick={() => onInsertImage(item.meta.contentId, item.meta.filename)}>
                        Insert into HTML
                      </Button>
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        Reference it as <code>cid:{item.meta.contentId || "…"}</code>
                      </span>
                    </>
                  )}
                </div>
                {error && (
                  <p className="text-xs font-medium text-red-700 dark:text-red-400" data-testid="field-error">
                    {error}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
