import { describe, expect, it } from "vitest";
import { emptyDraft } from "./draft";
import { uploadForm } from "./upload";

describe("the /compose/send upload", () => {
  it("carries the draft as JSON and the files in order as file0, file1, …", async () => {
    const draft = { ...emptyDraft("example.com"), subject: "Hi" };
    const form = uploadForm(draft, [new File(["one"], "a.txt"), new File(["two!"], "b.png")]);
    expect(JSON.parse(String(form.get("draft")))).toEqual(draft);
    const files = [form.get("file0"), form.get("file1")] as File[];
    expect(files.map((f) => f.name)).toEqual(["a.txt", "b.png"]);
    expect(await Promise.all(files.map((f) => f.text()))).toEqual(["one", "two!"]);
    expect([...form.keys()]).toEqual(["draft", "file0", "file1"]);
  });
});
