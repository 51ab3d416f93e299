// The entry point: every command, the daemon included, starts here and stays in this process.
EvrouteCommand.main()
