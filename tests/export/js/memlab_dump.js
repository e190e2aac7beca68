#!/usr/bin/env node
// Loads a .heapsnapshot with memlab's heap parser and prints what memlab sees
// as one JSON object on stdout: counts, per-type counts and, per node, its
// name, type, sizes, memlab's retained size and dominator, and its edges.
//
// This is the independent reading of refscope's export: memlab is Meta's
// heap analysis tool for V8 snapshots, and it computes dominators and
// retained sizes with its own code (Lengauer-Tarjan). The loading is what
// @memlab/heap-analysis' getFullHeapFromFile() does (utils.getSnapshotFromFile
// with a node-id index, then analysis.preparePathFinder), called through
// @memlab/core directly so the tests need only that package.
//
// usage: node memlab_dump.js FILE [--max-nodes N]
//   Nodes are listed only if the heap has at most N of them (default 5000);
//   counts are always printed.
'use strict';

const path = require('path');

function usage(message) {
  process.stderr.write(`${message}\nusage: node memlab_dump.js FILE [--max-nodes N]\n`);
  process.exit(2);
}

async function main() {
  const args = process.argv.slice(2);
  let file = null;
  let maxNodes = 5000;
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--max-nodes') {
      maxNodes = Number(args[++i]);
      if (!Number.isInteger(maxNodes) || maxNodes < 0) usage('bad --max-nodes');
    } else if (file === null) {
      file = args[i];
    } else {
      usage(`unexpected argument ${args[i]}`);
    }
  }
  if (file === null) usage('no file given');

  const memlab = require('@memlab/core');
  // memlab prints progress lines on stdout; stdout must carry only the JSON.
  memlab.config.muteConsole = true;
  const heap = await memlab.utils.getSnapshotFromFile(path.resolve(file), {
    buildNodeIdIndex: true,
    verbose: false,
  });
  if (!heap) throw new Error(`memlab could not parse ${file}`);
  memlab.analysis.preparePathFinder(heap);

  const typeCounts = {};
  const edgeTypeCounts = {};
  let edgeTotal = 0;
  heap.nodes.forEach(node => {
    typeCounts[node.type] = (typeCounts[node.type] || 0) + 1;
    for (const edge of node.references) {
      edgeTypeCounts[edge.type] = (edgeTypeCounts[edge.type] || 0) + 1;
      ++edgeTotal;
    }
  });
  const out = {
    node_count: heap.nodes.length,
    edge_count: heap.edges.length,
    edges_walked: edgeTotal,
    type_counts: typeCounts,
    edge_type_counts: edgeTypeCounts,
  };
  if (heap.nodes.length <= maxNodes) {
    out.nodes = [];
    heap.nodes.forEach(node => {
      const dominator = node.dominatorNode;
      out.nodes.push({
        index: node.nodeIndex,
        id: node.id,
        name: node.name,
        type: node.type,
        self_size: node.self_size,
        retained_size: node.retainedSize,
        dominator_id: dominator ? dominator.id : null,
        edges: node.references.map(edge => [edge.type, edge.name_or_index, edge.toNode.id]),
      });
    });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(error => {
  process.stderr.write(`memlab_dump: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
