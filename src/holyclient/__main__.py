from holyclient._cli import console_main

console_main()
