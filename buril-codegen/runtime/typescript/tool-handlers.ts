/** An implementation of the tool `K` in TypeScript. */
export type ToolHandler<K extends keyof ToolMap> = (
  input: ToolMap[K]["input"],
) => ToolMap[K]["output"] | Promise<ToolMap[K]["output"]>;

/** An implementation of every tool. */
export type ToolHandlers = { [K in keyof ToolMap]: ToolHandler<K> };

/** Implementations of some of the tools. */
export type PartialToolHandlers = { [K in keyof ToolMap]?: ToolHandler<K> };
