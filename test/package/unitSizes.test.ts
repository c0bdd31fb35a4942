/**
 * Keeps the product's units small enough to hold in one's head: no function over 80 lines and no file over 500 in
 * the code that ships (the n8n package, the receiver, the sandbox). Measured from the TypeScript syntax tree, so a
 * function is every declaration, method, accessor, constructor, function expression and arrow function, from its
 * first line to its last; an inner function counts inside its outer one as well.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '../..');
const PRODUCT_DIRS = ['nodes', 'credentials', 'receiver/src', 'sandbox/src'];
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : sourceFiles(path);
		return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
	});
}

interface Unit {
	file: string;
	name: string;
	lines: number;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
	const named = node as { name?: ts.Node };
	if (named.name) return named.name.getText(source);
	const parent = node.parent;
	if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
		return parent.name.getText(source);
	}
	return '(anonymous)';
}

function measure(path: string): { fileLines: number; functions: Unit[] } {
	const text = readFileSync(path, 'utf8');
	const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const file = relative(ROOT, path);
	const functions: Unit[] = [];
	const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
			functions.push({ file, name: functionName(node, source), lines });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return { fileLines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), functions };
}

const files = PRODUCT_DIRS.flatMap((dir) => sourceFiles(join(ROOT, dir)));

test('the product has source files to measure in every folder', () => {
	for (const dir of PRODUCT_DIRS) {
		expect(files.filter((file) => relative(ROOT, file).startsWith(`${dir}/`)).length).toBeGreaterThan(0);
	}
});

test(`no product file is over ${MAX_FILE_LINES} lines`, () => {
	const over = files
		.map((file) => ({ file: relative(ROOT, file), lines: measure(file).fileLines }))
		.filter(({ lines }) => lines > MAX_FILE_LINES)
		.map(({ file, lines }) => `${file}: ${lines} lines`);
	expect(over).toEqual([]);
});

test(`no product function is over ${MAX_FUNCTION_LINES} lines`, () => {
	const over = files
		.flatMap((file) => measure(file).functions)
		.filter(({ lines }) => lines > MAX_FUNCTION_LINES)
		.map(({ file, name, lines }) => `${file}: ${name} ${lines} lines`);
	expect(over).toEqual([]);
});

test('the measure counts a function from its first line to its last', () => {
	const { functions, fileLines } = measure(join(ROOT, 'test/fixtures/unitSizes/sample.ts'));
	expect(fileLines).toBe(11);
	expect(functions).toEqual([
		{ file: 'test/fixtures/unitSizes/sample.ts', name: 'outer', lines: 9 },
		{ file: 'test/fixtures/unitSizes/sample.ts', name: 'inner', lines: 3 },
		{ file: 'test/fixtures/unitSizes/sample.ts', name: 'method', lines: 1 },
	]);
});
