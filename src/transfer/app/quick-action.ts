// The Finder Quick Action ("Deliver to Byre"), pure: the workflow bundle's
// Contents/Info.plist (the Services menu entry) and Contents/document.wflow
// (one Run Shell Script action handing the selected files to byre deliver).

import { GUI_PATH_TAIL, headerLines, labelSuffix, type ResolvedApp } from './identity.js';
import { shellQuote } from '../../output/shell-quote.js';

function quickActionMenuName(app: ResolvedApp): string {
  return `Deliver to Byre${labelSuffix(app)}`;
}

function header(app: ResolvedApp): string[] {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    ...headerLines(app).map((l) => `<!-- ${xml(l).replace(/--/g, '- -')} -->`),
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
  ];
}

export function renderQuickActionInfoPlist(app: ResolvedApp): string {
  return [
    ...header(app),
    '<dict>',
    '\t<key>NSServices</key>',
    '\t<array>',
    '\t\t<dict>',
    '\t\t\t<key>NSBackgroundColorName</key>',
    '\t\t\t<string>background</string>',
    '\t\t\t<key>NSIconName</key>',
    '\t\t\t<string>NSActionTemplate</string>',
    '\t\t\t<key>NSMenuItem</key>',
    '\t\t\t<dict>',
    '\t\t\t\t<key>default</key>',
    `\t\t\t\t<string>${xml(quickActionMenuName(app))}</string>`,
    '\t\t\t</dict>',
    '\t\t\t<key>NSMessage</key>',
    '\t\t\t<string>runWorkflowAsService</string>',
    '\t\t\t<key>NSRequiredContext</key>',
    '\t\t\t<dict>',
    '\t\t\t\t<key>NSApplicationIdentifier</key>',
    '\t\t\t\t<string>com.apple.finder</string>',
    '\t\t\t</dict>',
    '\t\t\t<key>NSSendFileTypes</key>',
    '\t\t\t<array>',
    '\t\t\t\t<string>public.item</string>',
    '\t\t\t</array>',
    '\t\t</dict>',
    '\t</array>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** The shell line the action runs; Automator passes the selection as "$@". */
function quickActionCommand(app: ResolvedApp): string {
  return `PATH="$PATH:${GUI_PATH_TAIL}" exec ${shellQuote(app.argv)} -- "$@" </dev/null`;
}

export function renderWorkflowDocument(app: ResolvedApp): string {
  const kv = (indent: string, key: string, value: string): string[] => [
    `${indent}<key>${key}</key>`,
    `${indent}${value}`,
  ];
  const s = (v: string): string => `<string>${xml(v)}</string>`;
  const t = '\t\t\t\t';
  return [
    ...header(app),
    '<dict>',
    ...kv('\t', 'AMApplicationBuild', s('521')),
    ...kv('\t', 'AMApplicationVersion', s('2.10')),
    ...kv('\t', 'AMDocumentVersion', s('2')),
    '\t<key>actions</key>',
    '\t<array>',
    '\t\t<dict>',
    '\t\t\t<key>action</key>',
    '\t\t\t<dict>',
    `${t}<key>AMAccepts</key>`,
    `${t}<dict>`,
    ...kv(`${t}\t`, 'Container', s('List')),
    ...kv(`${t}\t`, 'Optional', '<true/>'),
    `${t}\t<key>Types</key>`,
    `${t}\t<array>`,
    `${t}\t\t${s('com.apple.cocoa.path')}`,
    `${t}\t</array>`,
    `${t}</dict>`,
    ...kv(t, 'AMActionVersion', s('2.0.3')),
    ...kv(t, 'AMApplication', `<array>${s('Automator')}</array>`),
    ...kv(
      t,
      'AMProvides',
      `<dict><key>Container</key>${s('List')}<key>Types</key><array>${s('com.apple.cocoa.string')}</array></dict>`,
    ),
    ...kv(t, 'ActionBundlePath', s('/System/Library/Automator/Run Shell Script.action')),
    ...kv(t, 'ActionName', s('Run Shell Script')),
    `${t}<key>ActionParameters</key>`,
    `${t}<dict>`,
    ...kv(`${t}\t`, 'COMMAND_STRING', s(quickActionCommand(app))),
    ...kv(`${t}\t`, 'CheckedForUserDefaultShell', '<true/>'),
    ...kv(`${t}\t`, 'inputMethod', '<integer>1</integer>'),
    ...kv(`${t}\t`, 'shell', s('/bin/sh')),
    ...kv(`${t}\t`, 'source', s('')),
    `${t}</dict>`,
    ...kv(t, 'BundleIdentifier', s('com.apple.RunShellScript')),
    ...kv(t, 'CFBundleVersion', s('2.0.3')),
    ...kv(t, 'CanShowSelectedItemsWhenRun', '<false/>'),
    ...kv(t, 'CanShowWhenRun', '<true/>'),
    ...kv(t, 'Category', `<array>${s('AMCategoryUtilities')}</array>`),
    ...kv(t, 'Class Name', s('RunShellScriptAction')),
    ...kv(t, 'InputUUID', s('6B1D2D6E-6C5A-4C1E-9B1F-0B7E5D1A2C01')),
    ...kv(t, 'OutputUUID', s('6B1D2D6E-6C5A-4C1E-9B1F-0B7E5D1A2C02')),
    ...kv(t, 'UUID', s('6B1D2D6E-6C5A-4C1E-9B1F-0B7E5D1A2C03')),
    ...kv(t, 'UnlocalizedApplications', `<array>${s('Automator')}</array>`),
    ...kv(t, 'isViewVisible', '<integer>1</integer>'),
    '\t\t\t</dict>',
    ...kv('\t\t\t', 'isViewVisible', '<integer>1</integer>'),
    '\t\t</dict>',
    '\t</array>',
    '\t<key>connectors</key>',
    '\t<dict/>',
    '\t<key>workflowMetaData</key>',
    '\t<dict>',
    ...kv('\t\t', 'applicationBundleID', s('com.apple.finder')),
    ...kv('\t\t', 'applicationPath', s('/System/Library/CoreServices/Finder.app')),
    ...kv('\t\t', 'inputTypeIdentifier', s('com.apple.Automator.fileSystemObject')),
    ...kv('\t\t', 'outputTypeIdentifier', s('com.apple.Automator.nothing')),
    ...kv('\t\t', 'presentationMode', '<integer>15</integer>'),
    ...kv('\t\t', 'processesInput', '<integer>0</integer>'),
    ...kv('\t\t', 'serviceApplicationBundleID', s('com.apple.finder')),
    ...kv('\t\t', 'serviceApplicationPath', s('/System/Library/CoreServices/Finder.app')),
    ...kv('\t\t', 'serviceInputTypeIdentifier', s('com.apple.Automator.fileSystemObject')),
    ...kv('\t\t', 'serviceOutputTypeIdentifier', s('com.apple.Automator.nothing')),
    ...kv('\t\t', 'serviceProcessesInput', '<integer>0</integer>'),
    ...kv('\t\t', 'systemImageName', s('NSActionTemplate')),
    ...kv('\t\t', 'useAutomaticInputType', '<integer>0</integer>'),
    ...kv('\t\t', 'workflowTypeIdentifier', s('com.apple.Automator.servicesMenu')),
    '\t</dict>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

function xml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
