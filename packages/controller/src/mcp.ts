/**
 * `@pincer/controller/mcp`: an MCP server that serves one machine's actions, a screenshot tool and
 * a screenshot resource (the MCP SDK loads with this entry).
 */
export { createMcpServer, defaultMcpActions, SCREENSHOT_RESOURCE_URI } from "./mcp/server.js";
export type { McpServerOptions } from "./mcp/server.js";
