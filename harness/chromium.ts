/**
 * A real browser for the page tests: Debian's Chromium (/usr/bin/chromium,
 * or CHROMIUM_BIN) driven headless through playwright-core, which brings no
 * browser of its own. Without Chromium a test file skips with one line,
 * except under CI=true, where scripts/test-all.sh installs it and its
 * absence is a failure, as slapd's is. Screenshots go to test-artifacts/
 * (git-ignored) at the repository's root.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export type { Browser, Page } from 'playwright-core';

/** Where screenshots and other files a person looks at after a run are written. */
export const ARTIFACTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-artifacts');

export function chromiumPath(): string {
  return process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
}

function chromiumPresent(): boolean {
  try {
    accessSync(chromiumPath(), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function missingMessage(testFile: string): string {
  return `${testFile}: ${chromiumPath()} not found: the browser tests need Debian's Chromium; install it with \`apt-get install -y chromium\` (scripts/test-all.sh does)`;
}

/**
 * Whether `testFile` must skip its browser tests: false when Chromium is
 * there; true, after printing one line, when it is not; under CI=true its
 * absence throws instead (CI installs it, so the file fails). Use as
 * `(skipWithoutChromium(file) ? describe.skip : describe)(...)`.
 */
export function skipWithoutChromium(testFile: string): boolean {
  if (chromiumPresent()) return false;
  const message = missingMessage(testFile);
  if (process.env.CI === 'true') throw new Error(message);
  process.stdout.write(`${message}: skipping\n`);
  return true;
}

/**
 * The flags this machine needs: no sandbox (root, no user namespaces), no GPU,
 * and none of the background traffic (updates, sync, QUIC probes) that would
 * otherwise try the closed network over and over.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Starts headless Chromium. playwright gives each launch a fresh
 * --user-data-dir of its own (and refuses one in `args`), removed on close.
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: FLAGS });
}

/** Writes a PNG of the page to test-artifacts/<name>.png; the file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
