#!/usr/bin/env node
// A small MCP server (stdio, newline-delimited JSON-RPC) for the release-bot example.
// It works on the current directory, which is the sandbox's workspace copy during a run.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const tools = [
  {
    name: "ci_status",
    description: "Return the CI status (green or red) of a branch of this repository.",
    inputSchema: {
      type: "object",
      properties: { branch: { type: "string", description: "Branch name, e.g. main.", maxLength: 200 } },
      required: ["branch"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "list_tags",
    description: "List the git tags of this repository, newest first.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "create_tag",
    description: "Create an annotated git tag for a release version. Requires the maintainer's confirmation first.",
    inputSchema: {
      type: "object",
      properties: {
        version: { type: "string", description: "Semantic version without the v prefix, e.g. 1.3.0.", pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+$" },
        message: { type: "string", description: "Tag message.", maxLength: 2000 },
      },
      required: ["version"],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "publish_release",
    description: "Publish a tagged version to the package registry. Irreversible.",
    inputSchema: {
      type: "object",
      properties: { version: { type: "string", description: "The tagged version to publish.", maxLength: 50 } },
      required: ["version"],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
];

function git(args) {
  return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function call(name, args) {
  switch (name) {
    case "ci_status": {
      let status = "green";
      try { status = readFileSync(".ci-status", "utf8").trim() || status; } catch {}
      return `CI on ${args.branch}: ${status}`;
    }
    case "list_tags": {
      try { return git(["tag", "--sort=-creatordate"]) || "(no tags)"; } catch { return "(not a git repository)"; }
    }
    case "create_tag": {
      git(["tag", "-a", `v${args.version}`, "-m", args.message || `Release ${args.version}`]);
      return `created tag v${args.version}`;
    }
    case "publish_release":
      throw new Error("publishing needs network access to the registry, which this environment does not have");
    default:
      throw new Error(`unknown tool ${name}`);
  }
}

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let req;
  try { req = JSON.parse(line); } catch { return; }
  const { id, method, params } = req;
  if (id === undefined) return; // notifications
  if (method === "initialize") {
    send({ jsonrpc: "2.0", id, result: {
      protocolVersion: params?.protocolVersion ?? "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "release-tools", version: "1.0.0" },
    } });
  } else if (method === "ping") {
    send({ jsonrpc: "2.0", id, result: {} });
  } else if (method === "tools/list") {
    send({ jsonrpc: "2.0", id, result: { tools } });
  } else if (method === "tools/call") {
    try {
      const text = call(params.name, params.arguments ?? {});
      send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
    } catch (e) {
      send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: String(e.message) }], isError: true } });
    }
  } else {
    send({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
