// npm links a workspace's commands when it installs them (\`npm ci\`), before any build, and leaves out a command whose
// file is not there: the files in bin/ are always there, and run the compiled command, or say that it is not built.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

/** Runs `dist/receiver/src/<compiled>` as the command `name`. */
exports.launch = function launch(name, compiled) {
	const file = join(__dirname, '..', 'dist', 'receiver', 'src', compiled);
	if (existsSync(file)) require(file);
	else {
		process.stderr.write(name + ': the receiver is not built yet (' + file + ' is missing): run npm run build\n');
		process.exitCode = 1;
	}
};
