import fs from 'node:fs';
import path from 'node:path';

/**
 * The shell examples of `docs/`, read as a new user reads them: every ```sh and ```bash block, in the
 * order the README lists the pages (pages it does not list follow, by name). A block is skipped only when
 * the line before its fence says why: `<!-- docs-test: skip: starts the service itself -->`.
 */
export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip: string | undefined;
  /** One entry per `curl` command in the block's text, in order: the status its comment shows, if any. */
  curls: CurlSite[];
}

export interface CurlSite {
  /** 1-based line in the doc where the command starts. */
  line: number;
  /** The status the example says it answers (`# 201 …`, `# -> 409 …`, `# HTTP/1.1 401 …`), else none. */
  expected: number | undefined;
}

const RUNNABLE = new Set(['sh', 'bash']);
const SKIP = /^<!--\s*docs-test:\s*skip:?\s*(.*?)\s*-->$/;
/** A comment that states the answer's status: `# 201 {…}`, `#   -> 409 …`, `# → 404`, `# HTTP/1.1 401 …`. */
const STATUS_COMMENT = /^#\s*(?:->\s*|→\s*|HTTP\/[\d.]+\s+)?([1-5]\d\d)\b/;

export function docPages(root: string): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const listed = [...readme.matchAll(/\]\((docs\/[a-z0-9-]+\.md)\)/g)].map((m) => m[1] ?? '');
  const all = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .sort();
  const ordered = [...new Set(listed.filter((page) => all.includes(page)))];
  return [...ordered, ...all.filter((page) => !ordered.includes(page))];
}

export function readBlocks(root: string, page: string): DocBlock[] {
  const lines = fs.readFileSync(path.join(root, page), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (fence === null) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    const body = lines.slice(start + 1, end);
    i = end;
    if (!RUNNABLE.has(fence[1] ?? '')) continue;
    const before = previousNonEmpty(lines, start);
    const skip = before === undefined ? undefined : SKIP.exec(before.trim())?.[1];
    blocks.push({
      file: page,
      line: start + 1,
      code: body.join('\n'),
      skip: skip === undefined ? undefined : skip || 'no reason given',
      curls: curlSites(body, start + 2),
    });
  }
  return blocks;
}

function previousNonEmpty(lines: string[], index: number): string | undefined {
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    if (line.trim() !== '') return line;
  }
  return undefined;
}

/**
 * The `curl` commands of a block, each with the status its example shows: a trailing comment on the
 * command's last line, or the first of the comment lines right below it (no blank line between).
 */
export function curlSites(body: string[], firstLine: number): CurlSite[] {
  const sites: CurlSite[] = [];
  for (let i = 0; i < body.length; i++) {
    const startIndex = i;
    let logical = body[i] ?? '';
    // A command goes on past a trailing backslash, and past a line end inside quotes (a JSON body over lines).
    while (i + 1 < body.length && (logical.endsWith('\\') || openQuote(logical))) {
      logical = logical.endsWith('\\') ? `${logical.slice(0, -1)} ${body[++i]}` : `${logical}\n${body[++i]}`;
    }
    const { command, comment } = splitComment(logical);
    if (!/(^|[\s$(|;&])curl\s/.test(command)) continue;
    let expected = statusOf(comment);
    for (let j = i + 1; expected === undefined && j < body.length; j++) {
      const next = (body[j] ?? '').trim();
      if (!next.startsWith('#')) break;
      expected = statusOf(next);
    }
    sites.push({ line: firstLine + startIndex, expected });
  }
  return sites;
}

function statusOf(comment: string | undefined): number | undefined {
  if (comment === undefined) return undefined;
  const match = STATUS_COMMENT.exec(comment.trim());
  return match === null ? undefined : Number(match[1]);
}

/** Whether a command's text ends inside a quoted string. */
function openQuote(text: string): boolean {
  return splitComment(text).open;
}

/** A line's command and its trailing `# comment`, ignoring `#` inside quotes. */
function splitComment(line: string): { command: string; comment: string | undefined; open: boolean } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return { command: line.slice(0, i), comment: line.slice(i), open: false };
    }
  }
  return { command: line, comment: undefined, open: quote !== undefined };
}
