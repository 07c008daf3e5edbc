import type { Draft } from "./draft";

/** The multipart body of /compose/send: the draft as JSON, then its files in order (`file0`, `file1`, …). */
export function uploadForm(draft: Draft, files: File[]): FormData {
  const form = new FormData();
  form.append("draft", JSON.stringify(draft));
  files.forEach((f, i) => form.append(`file${i}`, f, f.name));
  return form;
}

/** Sends the draft and its files to the account's /compose/send with XMLHttpRequest, reporting upload progress. */
export function upload(base: string, draft: Draft, files: File[], onProgress: (loaded: number, total: number) => void): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const form = uploadForm(draft, files);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${base}/compose/send`);
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
    xhr.onerror = () => reject(new Error("network"));
    xhr.send(form);
  });
}
