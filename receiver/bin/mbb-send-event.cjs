#!/usr/bin/env node
// The command npm links for `mbb-send-event` (see launch.cjs).
'use strict';
require('./launch.cjs').launch('mbb-send-event', 'cli.js');
