from autodbg.cli import main

raise SystemExit(main())
