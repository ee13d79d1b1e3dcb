from diagnoser.frontends.cli import main

main()
