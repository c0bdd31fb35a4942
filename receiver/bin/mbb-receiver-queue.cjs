#!/usr/bin/env node
// The command npm links for `mbb-receiver-queue` (see launch.cjs).
'use strict';
require('./launch.cjs').launch('mbb-receiver-queue', 'queueCommand.js');
