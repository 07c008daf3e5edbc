/**
 * The citation rule of `npm run lint` (docs/adr/0012-citations-stay-inside-the-repo.md):
 * whatever the code and the docs cite must be readable by whoever clones the
 * repo. Pure functions; scripts/check-citations.ts feeds them the tracked
 * files.
 *
 * Two kinds of problem:
 * - a citation of a file that is not in the repo: a `*.md` name or path that
 *   resolves to no tracked file (the design notes that once lived beside the
 *   clone, a missing docs/ page), a `docs/…` path that does not exist, an
 *   `ADR NNNN` or `docs/adr/NNNN` without its file, anything under `spec/`
 *   or `shared/`;
 * - a reference to a numbered issue of a tracker the reader cannot see
 *   (the word followed by a number, or a bare hash-number in a comment or in
 *   markdown prose). `owner/repo#N` (a public GitHub issue) and HTML
 *   entities stay allowed; hex colours are told apart by their length.
 */

export interface CitationProblem {
  file: string;
  line: number;
  text: string;
  reason: string;
}

/** What the scanner knows of the repository. */
export interface RepoView {
  /** Whether a path (relative to the repository root, `/`-separated) is a file of the repo. */
  has(path: string): boolean;
  /** The four-digit numbers of docs/adr/NNNN-*.md. */
  adrs: ReadonlySet<string>;
}

/** Files that were never part of the repository and must not be cited. */
const OUTSIDE = new Set(["CONTRACT", "DESIGN", "STACK", "STYLE"].map((name) => `${name}.md`));

const CODE_EXTENSIONS = /\.(?:[cm]?[jt]sx?|sql|sh|css|ya?ml)$/;

/** Blank out URLs (keeping offsets) so that `https://host/x/README.md#12` is never read as a citation. */
function withoutUrls(text: string): string {
  return text.replace(/\b(?:https?|file):\/\/[^\s)>\]"'`]+/g, (url) => " ".repeat(url.length));
}

/** Normalises `a/./b/../c` to `a/c`; undefined when it climbs out of the repository. */
function normalise(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join("/");
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** A cited path resolves relative to the repository root, to the citing file, or (bare names) to docs/. */
function resolves(repo: RepoView, file: string, cited: string): boolean {
  const candidates = [cited, `${dirname(file)}/${cited}`];
  if (!cited.includes("/")) candidates.push(`docs/${cited}`);
  return candidates.some((c) => {
    const path = normalise(c);
    return path !== undefined && repo.has(path);
  });
}

/**
 * The lines of a file that may carry an issue's hash-number: comments of
 * code files, markdown outside fenced code, every line of other text files
 * (shell scripts without an extension, .env.example). String literals of
 * code (a subject line in a test, say) are not looked at.
 */
function commentLines(file: string, lines: string[]): (string | undefined)[] {
  if (file.endsWith(".md")) {
    let fenced = false;
    return lines.map((line) => {
      if (/^\s*(?:```|~~~)/.test(line)) {
        fenced = !fenced;
        return undefined;
      }
      return fenced ? undefined : line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
    });
  }
  if (!CODE_EXTENSIONS.test(file)) return lines;
  const sqlOrShell = /\.(?:sql|sh)$/.test(file);
  let inBlock = false;
  return lines.map((line) => {
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      return line;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith("/*")) {
      inBlock = !trimmed.includes("*/", 2);
      return line;
    }
    if (trimmed.startsWith("*") || trimmed.startsWith("//") || trimmed.startsWith("{/*")) return line;
    if (sqlOrShell && (trimmed.startsWith("--") || trimmed.startsWith("#"))) return line;
    // A comment after code: `x = 1; // see …`, `foo(); /* … */`.
    const at = line.search(/(?:^|\s)(?:\/\/|\/\*|--\s)/);
    return at >= 0 ? " ".repeat(at) + line.slice(at) : undefined;
  });
}

const ISSUE_WORD = /\b(?:issues?|tickets?|pull requests?|PRs?)\s*#?\d+/gi;
const HASH_NUMBER = /(^|[\s([,;])#(\d{1,6})(?![\w-])/g;
const ISSUE_CONTEXT = /\b(?:issues?|tickets?|PRs?|fix(?:es|ed)?|close[sd]?|see|per)\s*$/i;
const MD_PATH = /(?<![\w./@-])((?:\.{1,2}\/)*[\w@][\w.@/-]*?\.md)(?![\w/-])/g;
const DOCS_PATH = /(?<![\w./@-])((?:\.{1,2}\/)*docs\/[\w.@/-]*[\w-]\.[a-z]{2,4})(?![\w/-])/g;
const ADR_REF = /\bADRs?\s+(\d{4})\b|(?<![\w-])(?:docs\/)?adr\/(\d{4})\b/g;
const OUTSIDE_PATH = /(?<![\w.@-])(?:\.{1,2}\/)*(?:shared|spec)\/[\w.-]+\.md\b/g;

/** Every citation problem of one file. */
export function citationProblems(file: string, content: string, repo: RepoView): CitationProblem[] {
  const problems: CitationProblem[] = [];
  const lines = withoutUrls(content).split("\n");
  const hashLines = commentLines(file, lines);
  lines.forEach((line, i) => {
    const report = (text: string, reason: string) => problems.push({ file, line: i + 1, text, reason });

    const named: [number, number][] = [];
    for (const m of line.matchAll(ISSUE_WORD)) {
      named.push([m.index, m.index + m[0].length]);
      report(m[0], "names a numbered issue: name the capability or the ADR instead");
    }
    const comment = hashLines[i]; // same offsets as `line`, code blanked out
    if (comment !== undefined) {
      for (const m of comment.matchAll(HASH_NUMBER)) {
        if (named.some(([from, to]) => m.index >= from && m.index < to)) continue;
        if (m[1] === "(" && comment[m.index - 1] === "]") continue; // a markdown link to an anchor: [§5](#5)
        const digits = m[2]!;
        const before = comment.slice(0, m.index);
        const after = comment.slice(m.index + m[0].length);
        const explicit = ISSUE_CONTEXT.test(before) || (m[1] === "(" && after.startsWith(")"));
        // #123 and #123456 are as likely colours as issues: only with an issue's context.
        if ((digits.length === 3 || digits.length === 6) && !explicit) continue;
        report(`#${digits}`, "names a numbered issue: name the capability or the ADR instead");
      }
    }

    const seen = new Set<string>();
    for (const m of line.matchAll(OUTSIDE_PATH)) {
      seen.add(m[0].replace(/^(?:\.{1,2}\/)*/, "").replace(/^shared\//, ""));
      report(m[0], "cites a file outside the repo: cite docs/contract.md, docs/stack.md or docs/ARCHITECTURE.md");
    }
    for (const m of line.matchAll(MD_PATH)) {
      const cited = m[1]!;
      const name = cited.slice(cited.lastIndexOf("/") + 1);
      if ([...seen].some((s) => cited.endsWith(s))) continue;
      if (OUTSIDE.has(name) && !resolves(repo, file, cited)) {
        report(cited, "cites a file outside the repo: cite docs/contract.md, docs/stack.md or docs/ARCHITECTURE.md");
      } else if (!resolves(repo, file, cited)) report(cited, "cites a markdown file that is not in the repo");
    }
    for (const m of line.matchAll(DOCS_PATH)) {
      const cited = m[1]!;
      if (!cited.endsWith(".md") && !resolves(repo, file, cited)) report(cited, "cites a docs/ file that is not in the repo");
    }
    for (const m of line.matchAll(ADR_REF)) {
      const number = m[1] ?? m[2]!;
      if (!repo.adrs.has(number)) report(m[0], `cites ADR ${number}, which docs/adr/ does not have`);
    }
  });
  return problems;
}

/** Files the rule reads: text the project wrote (not the lock file, not images). */
export function isScanned(file: string): boolean {
  if (file === "package-lock.json" || file.startsWith("node_modules/")) return false;
  // The rule's own test spells out the citations it must refuse.
  if (file === "scripts/citations.test.ts") return false;
  if (/\.(?:png|jpe?g|gif|ico|webp|woff2?|pdf|p12|pem|der|zip|gz)$/i.test(file)) return false;
  return true;
}
