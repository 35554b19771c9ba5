/**
 * What this Hub is: its release version (the root package.json, baked in by every bundler that
 * builds it) and the commit it runs. The commit is `MA2H_COMMIT` when set (an image or tarball
 * built without `.git` sets it), else the checkout's `git rev-parse HEAD` read once when the process
 * first asks, else "unknown". Reported by `GET /healthz`, `ma2h-hub --version` and the start log.
 */
import { execFileSync } from "node:child_process";
import pkg from "../package.json" with { type: "json" };
import { processWide } from "./process-wide";

export interface HubRelease {
  /** The Hub's semantic version (CONTRIBUTING.md: Versions and releases). */
  version: string;
  /** The full commit id, or "unknown". */
  commit: string;
}

const COMMIT_ID = /^[0-9a-f]{7,64}$/u;

function readCommit(): string {
  const given = process.env.MA2H_COMMIT?.trim().toLowerCase();
  if (given && COMMIT_ID.test(given)) return given;
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    }).trim();
    return COMMIT_ID.test(head) ? head : "unknown";
  } catch {
    return "unknown"; // no git, or not a checkout
  }
}

/** The release this process runs (read once per process, however many copies of lib/ it loads). */
export function hubRelease(): HubRelease {
  return processWide("ma2h.release", () => ({ version: pkg.version, commit: readCommit() }));
}
