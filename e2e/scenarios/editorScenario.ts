export async function runEditorScenario(): Promise<void> {}
