-- byre-generated: deliver-app (written by `byre deliver --install-app`; byre regenerates this file and your edits will be lost)
--
-- Byre Deliver: drop files or folders on this app to deliver them into a
-- running byre box; open it without files to deliver the clipboard.

property deliverCommand : "PATH=\"$PATH:/usr/local/bin:/opt/homebrew/bin:/opt/local/bin\" /opt/byre/bin/byre deliver --box ab12"

on open droppedItems
	set argv to " --"
	repeat with anItem in droppedItems
		set argv to argv & " " & quoted form of POSIX path of anItem
	end repeat
	runDeliver(argv)
end open

on run
	runDeliver("")
end run

on runDeliver(extraArgs)
	try
		do shell script deliverCommand & extraArgs & " </dev/null"
	on error errText
		display alert "Byre Deliver" message errText as critical
	end try
end runDeliver
