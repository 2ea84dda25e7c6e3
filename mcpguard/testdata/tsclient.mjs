// The TypeScript SDK's MCP client (@modelcontextprotocol/sdk), driving a
// server over stdio for the end-to-end tests: argv[2] is the server's
// command line as a JSON array, argv[3] the steps as a JSON array. Each
// step's outcome is printed as one JSON line: {"ok": result} or
// {"error": message, "code": code}. Progress notifications of a call are
// counted in its result (progress).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.argv[2]);
const steps = JSON.parse(process.argv[3]);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "oarc-e2e-ts", version: "1.0.0" });
await client.connect(transport);
for (const s of steps) {
  try {
    let r;
    switch (s.op) {
      case "listTools":
        r = await client.listTools();
        break;
      case "callTool": {
        let progress = 0;
        const opts = s.progress ? { onprogress: () => { progress++; } } : undefined;
        r = await client.callTool({ name: s.name, arguments: s.arguments }, undefined, opts);
        if (s.progress) r.progress = progress;
        break;
      }
      case "listResources":
        r = await client.listResources();
        break;
      case "readResource":
        r = await client.readResource({ uri: s.uri });
        break;
      case "listPrompts":
        r = await client.listPrompts();
        break;
      case "getPrompt":
        r = await client.getPrompt({ name: s.name, arguments: s.arguments });
        break;
      default:
        throw new Error("unknown op " + s.op);
    }
    console.log(JSON.stringify({ ok: r }));
  } catch (e) {
    console.log(JSON.stringify({ error: String((e && e.message) || e), code: e && e.code }));
  }
}
await client.close();
