"use client";

import { useEffect, useState } from "react";
import type { AttachmentItem } from "./attachments";

/**
 * The HTML body rendered in a sandboxed iframe (`sandbox=""`: no scripts, no
 * forms, no navigation of the dashboard, an opaque origin), updated shortly
 * after typing stops. `cid:` references show the inline images attached
 * below (as data: URLs, which the page's CSP allows); remote images are
 * not fetched.
 */
export function HtmlPreview({ html, inline }: { html: string; inline: AttachmentItem[] }) {
  const [doc, setDoc] = useState("");
  const [images, setImages] = useState<Record<string, string>>({});

  useEffect(() => {
    let cancelled = false;
    const wanted = inline.filter((i) => i.meta.disposition === "inline" && i.meta.contentId && i.file.type.startsWith("image/") && i.file.size < 5_000_000);
    void Promise.all(
      wanted.map(
        (i) =>
          new Promise<[string, string]>((resolve) => {
            const reader = new FileReader();
            reader.onload = () => resolve([i.meta.contentId, String(reader.result)]);
            reader.onerror = () => resolve([i.meta.contentId, ""]);
            reader.readAsDataURL(i.file);
          }),
      ),
    ).then((pairs) => {
      if (!cancelled) setImages(Object.fromEntries(pairs));
    });
    return () => {
      cancelled = true;
    };
  }, [inline]);

  useEffect(() => {
    const t = setTimeout(() => {
      const withImages = html.replace(/(["'(])cid:([^"')\s]+)/gi, (m, q: string, id: string) => (images[id] ? `${q}${images[id]}` : m));
      setDoc(withImages);
    }, 250);
    return () => clearTimeout(t);
  }, [html, images]);

  return (
    <iframe
      title="HTML preview"
      sandbox=""
      srcDoc={doc || "<p style='font-family:sans-serif;color:#64748b'>The preview of the HTML body appears here.</p>"}
      className="h-80 w-full rounded-md border border-slate-300 bg-white dark:border-slate-700"
      data-testid="html-preview"
    />
  );
}
